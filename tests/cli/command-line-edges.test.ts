import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventLog, createRun, openDatabase } from '../../engine/index.js';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'examples', 'billing.script.json');

let home: string;
let workspace: string;
const cleanups: (() => void)[] = [];

beforeEach(() => {
  const made = tempDir('dagent-edges-');
  cleanups.push(made.cleanup);
  home = join(made.dir, 'home');
  workspace = join(made.dir, 'repo');
  mkdirSync(home);
  mkdirSync(workspace);
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** `dagent ...args` through the built binary, with HOME in the test's folder and no provider keys. */
function dagent(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], {
    cwd: options.cwd ?? workspace,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', ...options.env },
    input: options.input ?? '',
    timeout: 60_000,
  });
}

/** The same, without blocking this process: for stories whose loopback server lives in the test. */
function dagentAsync(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function planFromDocument(nodes: unknown[], cwd = workspace): string {
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Write two files', nodes }));
  const planned = dagent(['--json', 'plan', '--from', join(workspace, 'plan.json')], { cwd });
  expect(planned.status, planned.stderr).toBe(0);
  return (JSON.parse(planned.stdout) as { runId: string }).runId;
}

vi.setConfig({ testTimeout: 180_000 });

const TWO_NODES = [
  { id: 'first', title: 'Write a', kind: 'edit', instructions: 'Write a.txt', writes: ['a.txt'] },
  { id: 'second', title: 'Write b', kind: 'edit', instructions: 'Write b.txt', writes: ['b.txt'], dependsOn: ['first'] },
];

function runCount(): number {
  const listed = dagent(['--json', 'status']);
  return (JSON.parse(listed.stdout) as { runs: unknown[] }).runs.length;
}

describe('help', () => {
  it('lists every command with examples and says where settings come from', () => {
    const help = dagent(['--help']);
    expect(help.status).toBe(0);
    for (const command of ['plan', 'show', 'run', 'status', 'log', 'trust']) expect(help.stdout).toMatch(new RegExp(`dagent ${command}\\b`));
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('dagent demo');
    expect(help.stdout).toContain('dagent trust');
  });

  it("gives each command's help its own examples", () => {
    for (const [command, example] of [
      ['plan', 'dagent plan --from plan.json'],
      ['run', 'dagent run r-7f3a -j 2 --no-dashboard'],
      ['status', 'dagent status r-7f3a'],
      ['log', 'dagent log r-7f3a --type node/'],
      ['diff', 'dagent diff r-7f3a | less'],
      ['revert', 'dagent revert r-7f3a --dry-run'],
    ]) {
      const help = dagent([command!, '--help']);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).toContain(example);
    }
  });

  it('describes revert --force as what it does', () => {
    const help = dagent(['revert', '--help']);
    expect(help.stdout).toContain('also overwrite files edited again since the run');
  });
});

describe('errors: one line, exit 2', () => {
  it('exits 0 quietly when the reader of log, show or edit goes away', async () => {
    const store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
    const run = await createRun(store.db, { task: 'a long log', workspace, mode: 'plan' });
    const log = new EventLog(store.db, run.id);
    // More than a pipe holds (64 KiB), so dagent is still writing when `head` goes away.
    for (let index = 0; index < 300; index += 1) await log.append({ type: 'memory/added', payload: { memoryId: index + 1, kind: 'fact', scope: 'project', content: `fact number ${index} ${'x'.repeat(400)}` } });
    await store.close();
    for (const command of ['log', 'show', 'edit']) {
      if (command === 'show') planFromDocument(Array.from({ length: 300 }, (_, index) => ({ id: `n${index}`, title: `Node ${index} ${'y'.repeat(300)}`, kind: 'edit', instructions: 'x', writes: [`f${index}.txt`] })));
      const target = command === 'log' ? run.id : JSON.parse(dagent(['--json', 'status']).stdout).runs[0].id;
      const piped = spawnSync('bash', ['-c', `"${process.execPath}" "${DAGENT_BIN}" ${command} ${target} | head -1; echo "exit \${PIPESTATUS[0]}" >&2`], {
        cwd: workspace,
        encoding: 'utf8',
        // edit: an "editor" that renames every node's title, so the diff it prints is long.
        env: { PATH: process.env.PATH, HOME: home, EDITOR: 'sed -i s/Node/Knot/g' },
      });
      expect(piped.stdout.split('\n').filter(Boolean)).toHaveLength(1);
      expect(piped.stderr).toBe('exit 0\n');
    }
  });

  it('refuses an invalid --base-url before anything runs', () => {
    const result = dagent(['react', 'hi', '-m', 'deepseek:deepseek-chat', '--base-url', 'localhost:8000'], { env: { DEEPSEEK_API_KEY: 'sk-test' } });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('dagent: invalid base URL "localhost:8000": only http and https are supported\n');
    const garbled = dagent(['react', 'hi', '-m', 'deepseek:deepseek-chat', '--base-url', 'http//oops'], { env: { DEEPSEEK_API_KEY: 'sk-test' } });
    expect(garbled.status).toBe(2);
    expect(garbled.stderr).toBe('dagent: invalid base URL "http//oops": expected http://HOST[:PORT]/PATH or https://…\n');
    expect(runCount()).toBe(0);
  });

  it('says the server cannot be reached, in one line, exit 2', async () => {
    const closed = await unusedPort();
    const result = dagent(['react', 'hi', '-m', 'deepseek:deepseek-chat', '--base-url', `http://127.0.0.1:${closed}/v1`], { env: { DEEPSEEK_API_KEY: 'sk-test' } });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `dagent: deepseek: cannot reach http://127.0.0.1:${closed}/v1/chat/completions (connection refused or host unknown: check --base-url and that the server runs)`,
    );
  });

  it('says the key was refused on HTTP 401, in one line, exit 2 (react and plan)', async () => {
    const server = await listen((_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'Authentication Fails, Your api key is invalid' } }));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      for (const command of [['react', 'hi'], ['plan', 'hi']]) {
        const result = await dagentAsync([...command, '-m', 'deepseek:deepseek-chat', '--base-url', url], { DEEPSEEK_API_KEY: 'sk-test' });
        expect(result.status, result.stderr).toBe(2);
        expect(result.stderr.trim().split('\n').at(-1)).toBe('dagent: deepseek 401: Authentication Fails, Your api key is invalid (check DEEPSEEK_API_KEY)');
      }
    } finally {
      server.close();
    }
  });

  it('refuses a missing API key or a model without a provider before any run is created', () => {
    const noKey = dagent(['plan', 'rename a to b', '-m', 'deepseek:deepseek-chat']);
    expect(noKey.status).toBe(2);
    expect(noKey.stderr).toBe('dagent: deepseek needs an API key: set DEEPSEEK_API_KEY (or pass an apiKey in the configuration)\n');
    const noProvider = dagent(['react', 'rename a to b', '-m', 'deepseek-chat']);
    expect(noProvider.status).toBe(2);
    expect(noProvider.stderr).toMatch(/^dagent: invalid model id "deepseek-chat": expected provider:model/);
    expect(runCount()).toBe(0);
  });

  it('says a run-id prefix is ambiguous, and names the matches', () => {
    const first = planFromDocument(TWO_NODES);
    const second = planFromDocument(TWO_NODES);
    const result = dagent(['status', 'r-']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('run id prefix "r-" is ambiguous');
    expect(result.stderr).toContain(first);
    expect(result.stderr).toContain(second);
  });

  it('refuses -j 0, --since abc and an unknown config key', () => {
    const runId = planFromDocument(TWO_NODES);
    const zero = dagent(['run', runId, '-j', '0']);
    expect(zero.status).toBe(2);
    expect(zero.stderr).toBe('dagent: --concurrency must be a whole number of at least 1, not "0"\n');
    const since = dagent(['log', runId, '--since', 'abc']);
    expect(since.status).toBe(2);
    expect(since.stderr).toBe('dagent: --since must be a whole number of at least 0, not "abc"\n');
    mkdirSync(join(home, '.config', 'dagent'), { recursive: true });
    writeFileSync(join(home, '.config', 'dagent', 'config.json'), JSON.stringify({ modle: 'deepseek:deepseek-chat' }));
    const unknown = dagent(['status']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe(`dagent: ${join(home, '.config', 'dagent', 'config.json')}: unknown setting: modle\n`);
  });

  it('names every problem of a settings file at once, each with what it must be and what it was', () => {
    mkdirSync(join(home, '.config', 'dagent'), { recursive: true });
    writeFileSync(join(home, '.config', 'dagent', 'config.json'), JSON.stringify({ model: 3, approval: 'sometimes', budget: { maxTokens: -1 }, frob: 1 }));

    const result = dagent(['status']);

    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `dagent: ${join(home, '.config', 'dagent', 'config.json')}: 4 problems: model: must be a string (got 3); approval: must be one of auto, suggest, never (got "sometimes"); budget.maxTokens: must be greater than 0 (got -1); unknown setting: frob\n`,
    );
  });

  it('refuses edit without $EDITOR and without a terminal, instead of opening vi', () => {
    const runId = planFromDocument(TWO_NODES);
    const result = dagent(['edit', runId]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^dagent: no editor: set \$VISUAL or \$EDITOR/);
  });

  it.skipIf(!hasBubblewrap())('says a read-only workspace is read-only, in one line', () => {
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Write two files', nodes: TWO_NODES }));
    const result = spawnSync('bwrap', ['--dev-bind', '/', '/', '--ro-bind', workspace, workspace, process.execPath, DAGENT_BIN, 'plan', '--from', 'plan.json'], {
      cwd: workspace,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: home },
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^dagent: cannot write dagent's state folder .*\.dagent \(\w+\): is the workspace read-only\?/);
  });
});

describe('the right workspace', () => {
  it('finds the repository root from a subfolder, as git does', () => {
    mkdirSync(join(workspace, '.git'));
    mkdirSync(join(workspace, 'src', 'deep'), { recursive: true });
    const runId = planFromDocument(TWO_NODES);
    const fromBelow = dagent(['--json', 'status'], { cwd: join(workspace, 'src', 'deep') });
    expect(fromBelow.status, fromBelow.stderr).toBe(0);
    expect(JSON.parse(fromBelow.stdout).runs.map((run: { id: string }) => run.id)).toEqual([runId]);
    expect(existsSync(join(workspace, 'src', 'deep', '.dagent'))).toBe(false);
  });

  it('refuses -w or --db naming a folder that does not exist, and makes none', () => {
    const missing = join(workspace, 'no-such-folder');
    const badWorkspace = dagent(['-w', missing, 'status']);
    expect(badWorkspace.status).toBe(2);
    expect(badWorkspace.stderr).toBe(`dagent: workspace ${missing} does not exist\n`);
    const badDb = dagent(['--db', join(missing, 'dagent.db'), 'status']);
    expect(badDb.status).toBe(2);
    expect(badDb.stderr).toBe(`dagent: database folder ${missing} does not exist (--db ${join(missing, 'dagent.db')})\n`);
    expect(existsSync(missing)).toBe(false);
  });

  it('looks at a folder without a run and leaves nothing behind', () => {
    const status = dagent(['status']);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toBe('no runs yet: `dagent plan "<task>"` starts one\n');
    for (const command of [['log', 'r-1234'], ['show', 'r-1234'], ['diff', 'r-1234'], ['export', 'r-1234']]) {
      const looked = dagent(command);
      expect(looked.status, command.join(' ')).toBe(2);
      expect(looked.stderr).toBe('dagent: unknown run "r-1234": `dagent status` lists the runs of this workspace\n');
    }
    expect(existsSync(join(workspace, '.dagent'))).toBe(false);
  });
});

describe('the right hints', () => {
  it('names approve and plan --yes for an unapproved plan, and edit or import for a rejected one', () => {
    const runId = planFromDocument(TWO_NODES);
    const unapproved = dagent(['run', runId]);
    expect(unapproved.status).toBe(2);
    expect(unapproved.stderr).toContain(`\`dagent approve ${runId}\``);
    expect(unapproved.stderr).toContain('`dagent plan --yes`');
    expect(unapproved.stderr).not.toContain('or pass --yes');
    const rejected = dagent(['reject', runId]);
    expect(rejected.stdout).toContain(`a new version: dagent edit ${runId} (or dagent import ${runId} FILE)`);
    const refused = dagent(['run', runId]);
    expect(refused.stderr).toBe(`dagent: plan v1 of run ${runId} was rejected: make a new version with \`dagent edit ${runId}\` or \`dagent import ${runId} FILE\`, then \`dagent approve ${runId}\`\n`);
  });

  it('runs with the model the plan was made with, shows no planner row, and resume --json prints JSON', () => {
    cpSync(join(ROOT, 'examples', 'billing'), workspace, { recursive: true });
    const planned = dagent(['--json', 'plan', 'Rename Invoice.total() to Invoice.grandTotal() everywhere; keep tests green', '-m', `scripted:${SCRIPT}`]);
    expect(planned.status, planned.stderr).toBe(0);
    const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
    expect(dagent(['approve', runId]).status).toBe(0);
    const ran = dagent(['run', runId, '--approval', 'auto']);
    expect(ran.stderr).not.toContain('no model configured');
    expect(ran.status, ran.stderr + ran.stdout).toBe(0);
    const status = JSON.parse(dagent(['--json', 'status', runId]).stdout) as { nodes: { id: string }[] };
    expect(status.nodes.map((node) => node.id)).not.toContain('planner');
    const resumed = dagent(['--json', 'resume', runId]);
    expect(resumed.status).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ runId, status: 'succeeded', resumed: false });
  });

  it('says why a replan failed, in the progress lines and in status, with no planner row', () => {
    const script = join(workspace, 'script.json');
    writeFileSync(
      script,
      JSON.stringify({
        agents: {
          'node:edit-a': [
            { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'new\n' } }, { name: 'report_missing_work', args: { title: 'Change b too', files: ['b.txt'], reason: 'b.txt repeats a.txt' } }] },
            { text: 'Changed a; b is missing.' },
          ],
          planner: [],
        },
      }),
    );
    const runId = planFromDocument([{ id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['a.txt'] }]);
    expect(dagent(['approve', runId]).status).toBe(0);

    const ran = dagent(['run', runId, '-m', `scripted:${script}`]);

    const reason = 'amending the plan failed: the planner stopped before answering (error: scripted model';
    expect(ran.stdout).toContain(`⟳ replan failed: ${reason}`);
    const status = dagent(['status', runId]).stdout;
    expect(status).toContain(`replan after missed-work failed: ${reason}`);
    expect(status).not.toMatch(/^planner /m);
  });

  it('runs a plan document with the model named when it was planned', () => {
    writeFileSync(join(workspace, 'a.txt'), 'old\n');
    writeFileSync(join(workspace, 'doc.script.json'), JSON.stringify({ agents: { 'node:edit-a': [{ toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'new\n' } }] }, { text: 'Changed a.' }] } }));
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Change a', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['a.txt'] }] }));
    const planned = dagent(['--json', 'plan', '--from', 'plan.json', '-m', 'scripted:doc.script.json']);
    expect(planned.status, planned.stderr).toBe(0);
    const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
    expect(dagent(['approve', runId]).status).toBe(0);

    const ran = dagent(['run', runId]);

    expect(ran.stderr).not.toContain('no model configured');
    expect(ran.status, ran.stderr).toBe(0);
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('new\n');
  });

  it('fails a run whose reported work was never planned, with the replan\'s reason, and resume plans it', () => {
    writeFileSync(join(workspace, 'a.txt'), 'old\n');
    writeFileSync(join(workspace, 'b.txt'), 'old\n');
    const failing = join(workspace, 'failing.script.json');
    writeFileSync(
      failing,
      JSON.stringify({
        agents: {
          'node:edit-a': [
            { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'new\n' } }, { name: 'report_missing_work', args: { title: 'Change b too', files: ['b.txt'], reason: 'b.txt repeats a.txt' } }] },
            { text: 'Changed a; b is missing.' },
          ],
          planner: [],
        },
      }),
    );
    // The model named when planning is recorded: run uses it, planner included.
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Change a', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['a.txt'] }] }));
    const planned = dagent(['--json', 'plan', '--from', 'plan.json', '-m', `scripted:${failing}`]);
    expect(planned.status, planned.stderr).toBe(0);
    const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
    expect(dagent(['approve', runId]).status).toBe(0);

    const ran = dagent(['run', runId]);

    const why = 'node edit-a reported missed work that was never planned ("Change b too"): the replan failed: amending the plan failed: the planner stopped before answering';
    expect(ran.status).toBe(1);
    expect(ran.stdout).toContain(`run ${runId} failed · plan v1 · 1/1 nodes succeeded\n${why}`);
    expect(ran.stdout).toContain(`plan the reported work: dagent resume ${runId}`);
    const status = dagent(['status', runId]).stdout;
    expect(status).toMatch(new RegExp(`^run ${runId} · failed · plan v1`, 'm'));
    expect(status).toContain(why);

    // Told another model, resume replans with it too: its planner answers, the reported work is planned and run; edit-a is not run again.
    const working = join(workspace, 'working.script.json');
    writeFileSync(
      working,
      JSON.stringify({
        agents: {
          planner: [{ text: `b was left out.\n\n\`\`\`json\n${JSON.stringify({ nodes: [{ id: 'edit-b', kind: 'edit', title: 'Change b', writes: ['b.txt'], dependsOn: ['edit-a'] }] })}\n\`\`\`` }],
          'node:edit-b': [{ toolCalls: [{ name: 'write_file', args: { path: 'b.txt', content: 'new\n' } }] }, { text: 'Changed b.' }],
        },
      }),
    );
    const resumed = dagent(['resume', runId, '-m', `scripted:${working}`]);

    expect(resumed.status, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`run ${runId} succeeded · plan v2 · 2/2 nodes succeeded · 1 replans`);
    expect(readFileSync(join(workspace, 'b.txt'), 'utf8')).toBe('new\n');
  });
});

describe('output', () => {
  it('exports an earlier plan version', () => {
    const runId = planFromDocument(TWO_NODES);
    writeFileSync(join(workspace, 'v2.json'), JSON.stringify({ goal: 'One file', nodes: [TWO_NODES[0]] }));
    expect(dagent(['import', runId, 'v2.json']).status).toBe(0);
    const first = dagent(['export', runId, '--plan-version', '1']);
    expect(first.status).toBe(0);
    expect((JSON.parse(first.stdout) as { nodes: unknown[] }).nodes).toHaveLength(2);
    const current = dagent(['export', runId]);
    expect((JSON.parse(current.stdout) as { nodes: unknown[] }).nodes).toHaveLength(1);
  });

  it('react shows the tool calls and leaves a blank line between turns', () => {
    writeFileSync(join(workspace, 'notes.txt'), 'hello\n');
    writeFileSync(
      join(workspace, 'react.script.json'),
      JSON.stringify({
        agents: {
          react: [
            { text: 'Let me read the notes.', toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'notes.txt' } }] },
            { text: 'The notes say hello.' },
          ],
        },
      }),
    );
    const result = dagent(['react', 'what do the notes say?', '-m', 'scripted:react.script.json']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('Let me read the notes.\n  → read_file {"path":"notes.txt"}\n\nThe notes say hello.\n');
  });
});

describe('a repository cannot steer dagent', () => {
  it("ignores the workspace config's model and approval until `dagent trust`, and asks again when it changes", () => {
    cpSync(SCRIPT, join(workspace, 'billing.script.json'));
    mkdirSync(join(workspace, '.dagent'));
    const config = join(workspace, '.dagent', 'config.json');
    writeFileSync(config, JSON.stringify({ model: 'scripted:billing.script.json', approval: 'auto', concurrency: 2 }));
    const untrusted = dagent(['plan', 'rename it']);
    expect(untrusted.status).toBe(2);
    expect(untrusted.stderr).toContain(`dagent: ${config} sets model, approval; ignored until you trust this workspace (\`dagent trust\`)`);
    expect(untrusted.stderr).toContain("dagent: no model configured: this workspace's .dagent/config.json names one, left out until you trust the workspace (`dagent trust`); or pass --model PROVIDER:MODEL, or set DAGENT_MODEL");

    const trusted = dagent(['trust']);
    expect(trusted.status, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain(`recorded in ${join(home, '.config', 'dagent', 'trusted-workspaces.json')}`);
    expect(readFileSync(join(home, '.config', 'dagent', 'trusted-workspaces.json'), 'utf8')).toContain(workspace);
    expect(dagent(['status']).stderr).toBe('');

    writeFileSync(config, JSON.stringify({ model: 'scripted:billing.script.json', approval: 'auto', baseUrl: 'http://127.0.0.1:9/v1' }));
    const changed = dagent(['status']);
    expect(changed.stderr).toContain('sets model, baseUrl, approval; ignored until you trust this workspace');
  });

  it("refuses a plan node's scripted model outside the workspace, without reading it", () => {
    const outside = join(home, 'secret.json');
    writeFileSync(outside, '{"agents": {"node:first": [{"text": "TOP-SECRET-CONTENT"}]}}');
    const runId = planFromDocument([{ ...TWO_NODES[0], model: `scripted:${outside}` }]);
    expect(dagent(['approve', runId]).status).toBe(0);
    const ran = dagent(['run', runId, '-m', `scripted:${SCRIPT}`]);
    expect(ran.status).toBe(2);
    expect(ran.stderr.trim().split('\n')).toHaveLength(1);
    expect(ran.stderr).toContain(`the plan names the model scripted:${outside}, outside the workspace: refused`);
    expect(ran.stdout + ran.stderr).not.toContain('TOP-SECRET');
  });
});

function hasBubblewrap(): boolean {
  return spawnSync('bwrap', ['--dev-bind', '/', '/', 'true']).status === 0;
}

function listen(handler: Parameters<typeof createServer>[1]): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

async function unusedPort(): Promise<number> {
  const server = await listen(() => undefined);
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

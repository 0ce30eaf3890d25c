import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * Hooks, as a user leaving a run alone sets them up: a PreToolUse hook that refuses `npm publish`,
 * a PostToolUse formatter after every edit, and a repository that tries to bring its own hooks.
 */

/** Reads the event on stdin; exit 2 with a reason when the command publishes. */
const NO_PUBLISH = `grep -q 'npm publish' && { echo 'publishing is for humans: ask the maintainer to run npm publish' >&2; exit 2; }; exit 0`;

/** A tiny formatter: one space on each side of every `=` in the edited file, then says what it did. */
const FORMATTER = `node -e "const fs = require('fs'); const event = JSON.parse(fs.readFileSync(0, 'utf8')); const path = event.args.path; fs.writeFileSync(path, fs.readFileSync(path, 'utf8').replace(/ *= */g, ' = ')); console.log('formatted ' + path + ' in ' + process.cwd())"`;

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;

const cli = (...args: string[]) => runCli(args, { cwd: workspace, env });
const git = (...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, env: { PATH: process.env.PATH, HOME: env.HOME }, encoding: 'utf8' }).trim();

interface HookRan {
  readonly nodeId: string | null;
  readonly payload: { event: string; command: string; tool?: string; toolCallId?: string; outcome: string; exitCode: number | null; stdout: string; stderr: string; effect: string; sandbox: string; folder?: string };
}

beforeEach(() => {
  temp = tempDir('dagent-hooks-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'a.js'), 'let x=1;\n');
  mkdirSync(join(temp.dir, 'home'));
  mkdirSync(join(temp.dir, 'config', 'dagent'), { recursive: true });
  env = { HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config'), PATH: process.env.PATH };
  git('init', '-q', '-b', 'main');
  mkdirSync(join(workspace, '.dagent'));
  writeFileSync(join(workspace, '.dagent', '.gitignore'), '*\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
});

afterEach(() => temp.cleanup());

function userConfig(config: object): void {
  writeFileSync(join(temp.dir, 'config', 'dagent', 'config.json'), JSON.stringify(config));
}

function script(agents: object): string {
  const path = join(temp.dir, 'model.json');
  writeFileSync(path, JSON.stringify({ agents }));
  return `scripted:${path}`;
}

async function planAndRun(plan: object, model: string): Promise<{ runId: string; stdout: string; stderr: string; code: number }> {
  writeFileSync(join(temp.dir, 'plan.json'), JSON.stringify(plan));
  const ran = await cli('--model', model, '--approval', 'auto', 'plan', '--from', join(temp.dir, 'plan.json'), '--yes');
  const runId = /run (r-[0-9a-z]+)/.exec(ran.stdout)?.[1];
  expect(runId, ran.stdout + ran.stderr).toBeDefined();
  return { runId: runId!, ...ran };
}

async function hookRuns(runId: string): Promise<HookRan[]> {
  const log = await cli('log', runId, '--type', 'hook/ran', '--json');
  return log.stdout.trim() === '' ? [] : log.stdout.trim().split('\n').map((line) => JSON.parse(line) as HookRan);
}

const PUBLISH_PLAN = { goal: 'Release', nodes: [{ id: 'release', kind: 'agent', title: 'Release the package', writes: [] }] };
const PUBLISH_MODEL = {
  'node:release': [
    { toolCalls: [{ id: 'call-publish', name: 'run_command', args: { command: 'touch published && npm publish' } }, { id: 'call-version', name: 'run_command', args: { command: 'echo checked > version-checked' } }] },
    { text: 'The publish was refused by policy; a maintainer must run it.' },
  ],
};

describe('hooks', () => {
  it('a PreToolUse hook exiting 2 blocks run_command with npm publish, and the model reads why', { timeout: 60_000 }, async () => {
    userConfig({ isolation: 'shared', hooks: { PreToolUse: [{ matcher: 'run_command', command: NO_PUBLISH }] } });

    const run = await planAndRun(PUBLISH_PLAN, script(PUBLISH_MODEL));

    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The publishing call never ran; the other command, which the hook let through, did.
    expect(existsSync(join(workspace, 'published'))).toBe(false);
    expect(readFileSync(join(workspace, 'version-checked'), 'utf8')).toBe('checked\n');
    const inspected = JSON.parse((await cli('inspect', run.runId, '--node', 'release', '--json')).stdout) as {
      messages: { role: string; toolCallId?: string; content: string; isError?: boolean; meta?: { outcome: string; blockedBy?: string } }[];
      hooks: { event: string; outcome: string; toolCallId?: string }[];
    };
    const refused = inspected.messages.find((message) => message.role === 'tool' && message.toolCallId === 'call-publish')!;
    expect(refused.isError).toBe(true);
    expect(refused.content).toContain('blocked by a PreToolUse hook');
    expect(refused.content).toContain('publishing is for humans: ask the maintainer to run npm publish');
    expect(refused.meta).toMatchObject({ outcome: 'refused', blockedBy: 'hook' });
    const allowed = inspected.messages.find((message) => message.role === 'tool' && message.toolCallId === 'call-version')!;
    expect(allowed.isError).toBe(false);
    // Each hook run is an event of the node: one blocked, one let through.
    const runs = (await hookRuns(run.runId)).sort((left, right) => String(left.payload.toolCallId).localeCompare(String(right.payload.toolCallId)));
    expect(runs.map((ran) => [ran.nodeId, ran.payload.event, ran.payload.toolCallId, ran.payload.outcome, ran.payload.effect])).toEqual([
      ['release', 'PreToolUse', 'call-publish', 'blocked', 'blocked'],
      ['release', 'PreToolUse', 'call-version', 'ok', 'none'],
    ].sort((left, right) => String(left[2]).localeCompare(String(right[2]))));
    expect(runs.every((ran) => ran.payload.sandbox === 'bubblewrap')).toBe(true);
    expect(inspected.hooks.map((hook) => hook.outcome).sort()).toEqual(['blocked', 'ok']);
    const text = (await cli('inspect', run.runId, '--node', 'release')).stdout;
    expect(text).toMatch(/── hooks \(2\) ──/);
    expect(text).toMatch(/PreToolUse run_command \[call-publish\] blocked \(exit 2\)/);
    const log = (await cli('log', run.runId, '--type', 'hook/ran')).stdout;
    // It says where the hook ran, the one folder a sandboxed hook can write in.
    expect(log).toMatch(/hook\/ran\s+PreToolUse run_command blocked \(exit 2\) in \/\S+ \(bubblewrap: writes only there\): /);
    expect(runs.every((ran) => typeof ran.payload.folder === 'string' && ran.payload.folder !== '')).toBe(true);
  });

  it('a PostToolUse formatter after edit_file changes the file; the change is in the node\'s diff and the model hears of it', { timeout: 60_000 }, async () => {
    userConfig({ isolation: 'worktree', hooks: { PostToolUse: [{ matcher: 'edit_file|write_file', command: FORMATTER, timeoutMs: 20_000 }] } });
    const model = script({
      'node:edit-a': [{ toolCalls: [{ id: 'call-edit', name: 'edit_file', args: { path: 'src/a.js', old_string: 'let x=1;', new_string: 'let x=2;' } }] }, { text: 'Set x to 2.' }],
    });

    const run = await planAndRun({ goal: 'Set x', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Set x to 2', writes: ['src/a.js'] }] }, model);

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(readFileSync(join(workspace, 'src', 'a.js'), 'utf8')).toBe('let x = 2;\n');
    const diff = await cli('diff', run.runId, '--node', 'edit-a');
    expect(diff.stdout).toContain('-let x=1;');
    expect(diff.stdout).toContain('+let x = 2;');
    const [ran] = await hookRuns(run.runId);
    expect(ran!.payload).toMatchObject({ event: 'PostToolUse', tool: 'edit_file', toolCallId: 'call-edit', outcome: 'ok', effect: 'context' });
    // It ran in the node's own worktree, not in the user's checkout.
    expect(ran!.payload.stdout).toMatch(/^formatted src\/a\.js in \//);
    expect(ran!.payload.stdout).not.toContain(`in ${workspace}\n`);
    const inspected = JSON.parse((await cli('inspect', run.runId, '--node', 'edit-a', '--json')).stdout) as { messages: { role: string; toolCallId?: string; content: string }[] };
    const result = inspected.messages.find((message) => message.role === 'tool' && message.toolCallId === 'call-edit')!;
    expect(result.content).toMatch(/--- PostToolUse hook `node -e .*` ---\nformatted src\/a\.js in /);
  });

  it("a NodeEnd hook that writes in an isolated node's workspace after its last step: what it wrote is in the node's change", { timeout: 60_000 }, async () => {
    userConfig({ isolation: 'worktree', hooks: { NodeEnd: [{ matcher: 'edit-a', command: 'echo stamped > src/stamp.txt' }] } });
    const model = script({
      'node:edit-a': [{ toolCalls: [{ id: 'call-edit', name: 'edit_file', args: { path: 'src/a.js', old_string: 'let x=1;', new_string: 'let x=2;' } }] }, { text: 'Set x to 2.' }],
    });

    const run = await planAndRun({ goal: 'Set x', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Set x to 2', writes: ['src/**'] }] }, model);

    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The step's checkpoint came before the hook: the node's commit is of the workspace as the hook left it.
    expect(readFileSync(join(workspace, 'src', 'a.js'), 'utf8')).toBe('let x=2;\n');
    expect(readFileSync(join(workspace, 'src', 'stamp.txt'), 'utf8')).toBe('stamped\n');
    expect(git('show', '--name-only', '--format=', `dagent/${run.runId}`).split('\n').sort()).toEqual(['src/a.js', 'src/stamp.txt']);
  });

  it("a repository's own hooks do not run until the user trusts it, and a note says why", { timeout: 60_000 }, async () => {
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'shared', hooks: { PreToolUse: [{ matcher: 'run_command', command: NO_PUBLISH }] } }));
    // The repository's hook, had it run, would refuse this call ('npm publish' is in its arguments).
    const model = script({
      'node:release': [{ toolCalls: [{ id: 'call-publish', name: 'run_command', args: { command: 'touch published # npm publish' } }] }, { text: 'Done.' }],
    });
    const plan = { goal: 'Release', nodes: [{ id: 'release', kind: 'agent', title: 'Release the package', writes: [] }] };

    const untrusted = await planAndRun(plan, model);

    expect(untrusted.code, untrusted.stdout + untrusted.stderr).toBe(0);
    expect(untrusted.stderr).toMatch(/sets hooks; ignored until you trust this workspace \(`dagent trust`\)/);
    expect(untrusted.stderr).toMatch(/its hooks do not run: they would run commands the repository chose/);
    expect(existsSync(join(workspace, 'published'))).toBe(true);
    expect(await hookRuns(untrusted.runId)).toEqual([]);

    // Trusted, the same hook runs and blocks.
    const trusted = await cli('trust');
    expect(trusted.code, trusted.stderr).toBe(0);
    git('clean', '-fq', '--', 'published');
    const again = await planAndRun(plan, model);
    expect(again.stderr).not.toContain('ignored until you trust');
    expect(existsSync(join(workspace, 'published'))).toBe(false);
    expect((await hookRuns(again.runId)).map((ran) => ran.payload.outcome)).toEqual(['blocked']);
  });

  it('a NodeStart hook exiting 2 fails its node before it runs; NodeEnd and RunEnd hooks hear how it ended', { timeout: 60_000 }, async () => {
    userConfig({
      isolation: 'shared',
      hooks: {
        NodeStart: [{ matcher: 'deploy', command: "echo 'freeze: no deploys on Friday' >&2; exit 2" }, { matcher: 'other', command: 'touch never' }],
        NodeEnd: [{ command: 'cat > .node-end.json' }],
        RunEnd: [{ command: 'cat > .run-end.json' }],
      },
    });
    const plan = { goal: 'Deploy', nodes: [{ id: 'deploy', kind: 'command', title: 'Deploy', command: 'echo deployed > deployed.txt', writes: ['deployed.txt'] }] };

    const run = await planAndRun(plan, script({}));

    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain('blocked by a NodeStart hook');
    expect(run.stdout).toContain('freeze: no deploys on Friday');
    expect(existsSync(join(workspace, 'deployed.txt'))).toBe(false);
    expect(existsSync(join(workspace, 'never'))).toBe(false);
    const nodeEnd = JSON.parse(readFileSync(join(workspace, '.node-end.json'), 'utf8')) as { event: string; nodeId: string; node: { status: string; error: string } };
    expect(nodeEnd).toMatchObject({ event: 'NodeEnd', nodeId: 'deploy', node: { status: 'failed' } });
    expect(nodeEnd.node.error).toContain('freeze');
    expect(JSON.parse(readFileSync(join(workspace, '.run-end.json'), 'utf8'))).toMatchObject({ event: 'RunEnd', runId: run.runId, nodeId: null, run: { status: 'failed' } });
    expect((await hookRuns(run.runId)).map((ran) => [ran.nodeId, ran.payload.event, ran.payload.outcome, ran.payload.effect])).toEqual([
      ['deploy', 'NodeStart', 'blocked', 'blocked'],
      ['deploy', 'NodeEnd', 'ok', 'none'],
      [null, 'RunEnd', 'ok', 'none'],
    ]);
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { detectSandbox } from '../../tools/index.js';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * dagent on a terminal (a pseudo-terminal through the built binary). `dagent run --no-dashboard`:
 * a node asks to run a command while another node finishes; the question stays in one piece on the
 * screen — the other node's progress line waits until the question is answered, and comes after
 * it. And colour: `diff` colours its output on a terminal, and not under NO_COLOR.
 */

vi.setConfig({ testTimeout: 120_000 });

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  temp = tempDir('dagent-prompt-');
  workspace = join(temp.dir, 'repo');
  mkdirSync(workspace);
  mkdirSync(join(temp.dir, 'home'));
  env = { PATH: process.env.PATH, HOME: join(temp.dir, 'home'), TERM: 'xterm' };
});

afterEach(() => temp.cleanup());

function dagent(args: readonly string[]): string {
  const result = spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, env: { ...env, NO_COLOR: '1' }, encoding: 'utf8', input: '', timeout: 60_000 });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout;
}

/** A command on a pseudo-terminal (util-linux `script`): what the screen shows, and a way to type. */
function onTerminal(args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): { screen: () => string; type: (text: string) => void; exited: Promise<number | null> } {
  const command = [process.execPath, DAGENT_BIN, ...args].map((word) => `'${word}'`).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { cwd: workspace, env: { ...env, ...extraEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  return {
    screen: () => screen.replace(/\r\n/g, '\n'),
    type: (text) => child.stdin.write(text),
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
}

async function until(condition: () => boolean, what: string, limitMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function nodeSucceeded(runId: string, nodeId: string): boolean {
  const db = new BetterSqlite3(join(workspace, '.dagent', 'dagent.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("select 1 from events where run_id = ? and node_id = ? and type = 'node/succeeded'").get(runId, nodeId) !== undefined;
  } finally {
    db.close();
  }
}

/** wait-gate's progress line when it succeeds (`✓ wait-gate 1.2s · …`), not its grant line. */
const SUCCEEDED_LINE = /✓ wait-gate \d/;

const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript || !detectSandbox().available)('an approval question on a terminal while other nodes report progress', () => {
  it('keeps the question in one piece and prints the other node’s line after the answer', async () => {
    writeFileSync(
      join(workspace, 'plan.json'),
      JSON.stringify({
        goal: 'Change a while waiting for the gate',
        nodes: [
          { id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['a.txt'] },
          { id: 'wait-gate', kind: 'command', title: 'Wait for the gate', command: 'while [ ! -e gate ]; do sleep 0.05; done; echo open' },
        ],
      }),
    );
    const script = join(temp.dir, 'script.json');
    writeFileSync(
      script,
      JSON.stringify({
        agents: {
          'node:edit-a': [
            { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'new\n' } }, { name: 'run_command', args: { command: 'touch asked.txt' } }] },
            { text: 'Changed a.' },
          ],
        },
      }),
    );
    const runId = (JSON.parse(dagent(['--json', 'plan', '--from', 'plan.json', '-m', `scripted:${script}`])) as { runId: string }).runId;
    dagent(['approve', runId]);

    const terminal = onTerminal(['--approval', 'suggest', 'run', runId, '--no-dashboard', '-m', `scripted:${script}`], { NO_COLOR: '1' });
    await until(() => terminal.screen().includes('Allow?'), 'the question');
    // The other node finishes while the question is open…
    writeFileSync(join(workspace, 'gate'), '');
    await until(() => nodeSucceeded(runId, 'wait-gate'), 'wait-gate to succeed');
    // …its line is not on the screen yet: the question is still the last thing shown.
    expect(terminal.screen()).not.toMatch(SUCCEEDED_LINE);
    expect(terminal.screen().trimEnd()).toMatch(/Allow\? \[Y\]es \/ \[n\]o \/ \[a\]lways for this run:$/);
    terminal.type('y\n');
    const code = await terminal.exited;

    const screen = terminal.screen();
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/\ndagent wants to [^\n]*touch asked\.txt[^\n]* \(node edit-a\)\nAllow\? \[Y\]es \/ \[n\]o \/ \[a\]lways for this run: y\n/);
    const question = screen.indexOf('dagent wants to');
    expect(screen.search(SUCCEEDED_LINE)).toBeGreaterThan(question);
    expect(screen).toContain(`run ${runId} succeeded`);
    expect(existsSync(join(workspace, 'asked.txt'))).toBe(true);
    // The log says who granted what: the plan its declared edit and command, the user the rest.
    const granted = dagent(['log', runId, '--type', 'approval/granted', '--json'])
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { nodeId: string; payload: { tool: string; by: string } })
      .map((event) => [event.nodeId, event.payload.tool, event.payload.by]);
    expect(granted.sort()).toEqual([
      ['edit-a', 'run_command', 'user'],
      ['edit-a', 'write_file', 'plan'],
      ['wait-gate', 'run_command', 'plan'],
    ]);
  });
});

describe.skipIf(!hasScript || !detectSandbox().available)('colour on a terminal', () => {
  it('colours diff on a terminal, and not under NO_COLOR', async () => {
    writeFileSync(join(workspace, 'a.txt'), 'old\n');
    writeFileSync(
      join(workspace, 'plan.json'),
      JSON.stringify({ goal: 'Change a', nodes: [{ id: 'change-a', kind: 'command', title: 'Change a', command: 'echo new > a.txt', writes: ['a.txt'] }] }),
    );
    const runId = (JSON.parse(dagent(['--json', 'plan', '--from', 'plan.json'])) as { runId: string }).runId;
    dagent(['approve', runId]);
    dagent(['run', runId]);

    const coloured = onTerminal(['diff', runId]);
    const plain = onTerminal(['diff', runId], { NO_COLOR: '1' });
    expect(await coloured.exited).toBe(0);
    expect(await plain.exited).toBe(0);

    expect(coloured.screen()).toContain('\u001b[32m+new');
    expect(plain.screen()).toContain('\n+new\n');
    expect(plain.screen()).not.toContain('\u001b[');
  });
});

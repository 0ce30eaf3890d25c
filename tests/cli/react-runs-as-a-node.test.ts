import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { detectSandbox } from '../../tools/index.js';
import { runCli, type CliResult } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * `dagent react` runs its one agent as one node, `react`: what it is denied is shown where it
 * asked, and fails it as it fails a plan node; what it changes is recorded as a node's change, so
 * `status` and `report` tell the run as it went, and `diff` and `revert` take it.
 */

const SHAPE = 'export interface Shape {\n  area(): number;\n}\n';
const RENAMED = 'export interface Shape {\n  getArea(): number;\n}\n';
const EDIT = { name: 'edit_file', args: { path: 'src/shape.ts', old_string: '  area(): number;', new_string: '  getArea(): number;' } };

let dir: string;
let workspace: string;
let script: string;
let cleanup: () => void;

beforeEach(() => {
  ({ dir, cleanup } = tempDir('dagent-react-node-'));
  workspace = join(dir, 'repo');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'shape.ts'), SHAPE);
  script = join(dir, 'react.script.json');
});
afterEach(() => cleanup());

vi.setConfig({ testTimeout: 60_000 });

const cli = (...args: string[]): Promise<CliResult> => runCli(args, { cwd: workspace });
const shape = (): string => readFileSync(join(workspace, 'src', 'shape.ts'), 'utf8');

function scriptTurns(...turns: readonly unknown[]): void {
  writeFileSync(script, JSON.stringify({ agents: { react: turns } }));
}

function gitInit(): void {
  const git = (...args: string[]): void => {
    expect(spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: workspace }).status).toBe(0);
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
}

async function react(...flags: string[]): Promise<{ result: CliResult; runId: string }> {
  const result = await cli('react', 'rename Shape.area to getArea', '-m', `scripted:${script}`, ...flags);
  const runId = /^run (r-\w+) · scripted:/m.exec(result.stderr)?.[1] ?? '';
  expect(runId, result.stderr).not.toBe('');
  return { result, runId };
}

describe('a react run without a terminal', () => {
  it('shows a denied edit under its call, says at the end how many were denied and what lets them through, and fails as a plan node would', async () => {
    scriptTurns({ toolCalls: [EDIT] }, { text: 'Renamed area() to getArea().' });

    const { result, runId } = await react();

    expect(result.code, result.stderr).toBe(1);
    expect(shape()).toBe(SHAPE);
    // The arguments as given (two spaces stay two), the denial in the words `run` uses for a node.
    expect(result.stdout).toBe(
      '  → edit_file {"path":"src/shape.ts","old_string":"  area(): number;","new_string":"  getArea(): number;"}\n' +
        '  ⊘ react edit_file: denied (no terminal to ask)\n\nRenamed area() to getArea().\n',
    );
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.slice(1, 3)).toEqual([
      'failed: a write was denied',
      '1 tool call was denied: there was no terminal to ask for approval; run it from a terminal to be asked, or pass --approval auto to allow it (the sandbox still confines commands)',
    ]);
    const status = await cli('status', runId);
    expect(status.stdout).toContain(`run ${runId} · failed · 0/1 nodes done`);
    expect(status.stdout).toMatch(/^react +failed +1 /m);
    // What lets it through is what react takes: no `dagent resume` of a run that has no plan.
    expect(status.stdout).toContain('react failed: a write was denied: edit_file src/shape.ts');
    expect(status.stdout).toContain('was denied: there was no terminal to ask for approval; run it from a terminal to be asked, or pass --approval auto');
    expect(status.stdout).not.toContain('dagent resume');
  });
});

describe.each([
  ['a git repository', true],
  ['a folder without git', false],
])('a react run that edits a file, in %s', (_where, git) => {
  beforeEach(() => {
    if (git) gitInit();
  });

  it('is listed by status and report as its one agent, done, with its model and tokens; diff --stat shows the file; revert puts it back', async () => {
    scriptTurns({ toolCalls: [EDIT] }, { text: 'Renamed area() to getArea().' });

    const { result, runId } = await react('--approval', 'auto');

    expect(result.code, result.stderr).toBe(0);
    expect(shape()).toBe(RENAMED);
    expect(result.stderr).not.toContain('denied');

    const status = await cli('status', runId);
    expect(status.stdout).toContain(`run ${runId} · succeeded · 1/1 nodes done`);
    expect(status.stdout).toMatch(/^react +succeeded +1 .* scripted:react\.script\.json$/m);
    const statusJson = JSON.parse((await cli('--json', 'status', runId)).stdout) as { nodes: { id: string; status: string; attempts: number; tokens: { input: number }; model: string }[] };
    expect(statusJson.nodes).toEqual([expect.objectContaining({ id: 'react', status: 'succeeded', attempts: 1, model: `scripted:${script}` })]);
    expect(statusJson.nodes[0]!.tokens.input).toBeGreaterThan(0);

    const report = JSON.parse((await cli('report', runId, '--format', 'json')).stdout) as {
      run: { mode: string; model: string | null };
      nodes: { id: string; status: string; attempts: number; modelCalls: number; filesChanged: string[] }[];
      diff: { files: { path: string; nodeIds: string[] }[] };
      reproduce: string[];
    };
    expect(report.run).toMatchObject({ mode: 'react', model: `scripted:${script}` });
    expect(report.nodes).toEqual([expect.objectContaining({ id: 'react', status: 'succeeded', attempts: 1, modelCalls: 2, filesChanged: ['src/shape.ts'] })]);
    expect(report.diff.files).toEqual([expect.objectContaining({ path: 'src/shape.ts', nodeIds: ['react'] })]);
    // A react run has no plan to `show`; it runs again with the model it ran with.
    expect(report.reproduce.some((line) => line.includes(' show '))).toBe(false);
    expect(report.reproduce.at(-1)).toContain(`--model scripted\\:${script} react 'rename Shape.area to getArea'`);

    const stat = await cli('diff', runId, '--stat');
    expect(stat.stdout).toContain('src/shape.ts | +1 -1  react');
    const dryRun = await cli('revert', runId, '--dry-run');
    expect(dryRun.stdout).toContain('would restore  src/shape.ts  as before react');
    expect(shape()).toBe(RENAMED);

    const reverted = await cli('revert', runId);
    expect(reverted.code, reverted.stdout).toBe(0);
    expect(shape()).toBe(SHAPE);
  });
});

describe.skipIf(!detectSandbox().available).each([
  ['a git repository', true],
  ['a folder without git', false],
])('a react run whose command changes files, in %s', (_where, git) => {
  it('records them as its change: diff --stat names them, revert puts them back', async () => {
    if (git) gitInit();
    scriptTurns({ toolCalls: [{ name: 'run_command', args: { command: 'echo made > made.txt && sed -i s/area/getArea/ src/shape.ts' } }] }, { text: 'Made it.' });

    const { result, runId } = await react('--approval', 'auto');

    expect(result.code, result.stderr).toBe(0);
    expect(shape()).toBe(RENAMED);
    const stat = (await cli('diff', runId, '--stat')).stdout;
    expect(stat).toContain('made.txt     | +1 -0  react (new file)');
    expect(stat).toContain('src/shape.ts | +1 -1  react');
    expect((await cli('revert', runId)).code).toBe(0);
    expect(existsSync(join(workspace, 'made.txt'))).toBe(false);
    expect(shape()).toBe(SHAPE);
  });
});

describe('a react run stopped by Ctrl-C', () => {
  it('ends cancelled, not failed: the interrupt is named, what it changed is pointed to, and it exits 1 as a cancelled run does', async () => {
    scriptTurns({ toolCalls: [EDIT] }, { latencyMs: 60_000, text: 'too late' });
    const interrupt = new AbortController();

    const running = runCli(['react', 'rename Shape.area to getArea', '-m', `scripted:${script}`, '--approval', 'auto'], { cwd: workspace, signal: interrupt.signal });
    await untilEvent("type = 'tool/result'");
    interrupt.abort(new Error('interrupted (SIGINT)'));
    const result = await running;

    expect(result.code, result.stderr).toBe(1);
    const runId = /^run (r-\w+) · scripted:/m.exec(result.stderr)?.[1] ?? '';
    expect(result.stderr).toContain(`cancelled: interrupted (SIGINT); it had changed 1 file: see them with dagent diff ${runId}, undo them with dagent revert ${runId}\n`);
    expect(result.stderr).not.toContain('stopped: aborted');
    const status = await cli('status', runId);
    expect(status.stdout).toContain(`run ${runId} · cancelled · 0/1 nodes done`);
    expect(status.stdout).toMatch(/^react +cancelled +1 /m);
    expect((await cli('diff', runId, '--stat')).stdout).toContain('src/shape.ts | +1 -1  react');
  });
});

/** Waits until the workspace's log holds an event matching `where` (the run is that far). */
async function untilEvent(where: string): Promise<void> {
  const file = join(workspace, '.dagent', 'dagent.db');
  for (let waited = 0; waited < 30_000; waited += 50) {
    if (existsSync(file)) {
      const db = new BetterSqlite3(file, { readonly: true });
      try {
        if ((db.prepare(`SELECT count(*) AS n FROM events WHERE ${where}`).get() as { n: number }).n > 0) return;
      } catch {
        // The store is still being made.
      } finally {
        db.close();
      }
    }
    await sleep(50);
  }
  throw new Error(`no event where ${where} within 30 s`);
}

describe('a react run in a folder without git', () => {
  it.skipIf(!detectSandbox().available)('whose hook writes a file records that file as its change, as a command\'s', async () => {
    const config = join(dir, 'config');
    mkdirSync(join(config, 'dagent'), { recursive: true });
    writeFileSync(join(config, 'dagent', 'config.json'), JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'read_file', command: 'echo seen > seen-by-hook.txt' }] } }));
    scriptTurns({ toolCalls: [{ name: 'read_file', args: { path: 'src/shape.ts' } }] }, { text: 'Read it.' });

    const result = await runCli(['react', 'read the shape', '-m', `scripted:${script}`], { cwd: workspace, env: { HOME: join(dir, 'home'), XDG_CONFIG_HOME: config, PATH: process.env.PATH } });

    expect(result.code, result.stderr).toBe(0);
    const runId = /^run (r-\w+) · scripted:/m.exec(result.stderr)?.[1] ?? '';
    expect((await cli('diff', runId, '--stat')).stdout).toContain('seen-by-hook.txt | +1 -0  react (new file)');
  });
});

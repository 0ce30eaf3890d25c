import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { killRunningClis, spawnCli, type CliExit, type CliProcess } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * `kill -9` of a run while a node is halfway through its steps, then `dagent resume`: the node goes
 * on from its last completed step. Its recorded answers and tool results are kept (no model call
 * made for them again), its files are put back to the checkpoint of that step, and a command that
 * was running when the process died is reported to the model as interrupted, never run twice.
 * The kill is timed by the log (the events the test waits for), never by a sleep.
 */

vi.setConfig({ testTimeout: 120_000 });

interface Row {
  readonly seq: number;
  readonly node_id: string | null;
  readonly type: string;
  readonly step: number;
  readonly payload: string;
}

let dir: { dir: string; cleanup: () => void };
let workspace: string;
let scriptFile: string;
let planFile: string;

const PLAN = {
  goal: 'Write three files, one step at a time',
  nodes: [{ id: 'steps', kind: 'edit', title: 'Write the files', instructions: 'Write out/one.txt, out/two.txt and out/three.txt.', reads: [], writes: ['out/one.txt', 'out/two.txt', 'out/three.txt', 'out/partial.txt', 'out/late.txt'], dependsOn: [] }],
};

const write = (path: string, content: string, id: string): { toolCalls: { id: string; name: string; args: Record<string, string> }[] } => ({
  toolCalls: [{ id, name: 'write_file', args: { path, content } }],
});

beforeEach(() => {
  dir = tempDir('dagent-step-resume-');
  workspace = join(dir.dir, 'repo');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'README.md'), '# a repository\n');
  scriptFile = join(dir.dir, 'script.json');
  planFile = join(dir.dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(PLAN));
});
afterEach(() => dir.cleanup());
afterAll(() => killRunningClis());

function gitInit(): void {
  const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=dagent test', '-c', 'user.email=test@dagent.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'before the run');
}

/** The nodes share the working copy (`isolation: shared`), which a git repository does not get by default. */
function shareWorkingCopy(): void {
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'shared' }));
}

function writeScript(turns: readonly unknown[]): void {
  writeFileSync(scriptFile, JSON.stringify({ agents: { 'node:steps': turns } }));
}

const FLAGS = (): string[] => ['--model', `scripted:${scriptFile}`, '--approval', 'auto'];

function database(): string {
  return join(workspace, '.dagent', 'dagent.db');
}

function readEvents(): Row[] {
  if (!existsSync(database())) return [];
  const db = new BetterSqlite3(database(), { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return db.prepare<[], Row>('SELECT seq, node_id, type, step, payload FROM events ORDER BY seq').all();
  } catch {
    return [];
  } finally {
    db.close();
  }
}

/** Waits until the log holds an event `found` accepts, then `kill -9` of the process. */
async function killWhen(cli: CliProcess, found: (events: readonly Row[]) => boolean): Promise<void> {
  while (!cli.hasExited() && !found(readEvents())) await sleep(20);
  if (cli.hasExited()) throw new Error(`the run ended before its kill: ${describeExit(await cli.exited)}`);
  process.kill(cli.child.pid!, 'SIGKILL');
  await cli.exited;
}

function describeExit(exit: CliExit): string {
  return `exit ${exit.code ?? exit.signal}\n--- stdout ---\n${exit.stdout.slice(-3000)}\n--- stderr ---\n${exit.stderr.slice(-3000)}`;
}

function nodeEvents(type: string): Row[] {
  return readEvents().filter((event) => event.node_id === 'steps' && event.type === type);
}

async function dagent(...args: string[]): Promise<CliExit> {
  return spawnCli(args, workspace, { env: { HOME: dir.dir } }).exited;
}

function runId(): string {
  const db = new BetterSqlite3(database(), { readonly: true, fileMustExist: true });
  try {
    return db.prepare<[], { id: string }>('SELECT id FROM runs').get()!.id;
  } finally {
    db.close();
  }
}

/** Kills the run while the model call of step 3 is in flight (its request is in the log), then resumes it. */
async function killDuringThirdModelCall(): Promise<{ resume: CliExit; id: string }> {
  const turns = [write('out/one.txt', 'one\n', 'w1'), write('out/two.txt', 'two\n', 'w2'), write('out/three.txt', 'three\n', 'w3'), { text: 'Wrote the three files.' }];
  writeScript(turns.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn)));
  const run = spawnCli(['plan', '--from', planFile, '--yes', ...FLAGS()], workspace, { env: { HOME: dir.dir } });
  await killWhen(run, (events) => events.some((event) => event.node_id === 'steps' && event.type === 'request/header' && event.step === 3));
  // The same turns, answered at once this time.
  writeScript(turns);
  const id = runId();
  return { resume: await dagent('resume', id, ...FLAGS()), id };
}

function expectOnlyRemainingCalls(): void {
  const answers = nodeEvents('assistant/message');
  expect(answers.map((event) => event.step), 'one answer per step, none repeated').toEqual([1, 2, 4, 5]);
  const requests = nodeEvents('request/header').map((event) => event.step);
  // Steps 1 and 2 were asked once; the call in flight at step 3 is the one paid again (as step 4).
  expect(requests).toEqual([1, 2, 3, 4, 5]);
  const results = nodeEvents('tool/result').map((event) => (JSON.parse(event.payload) as { toolCallId: string }).toolCallId);
  expect(results, 'each write ran once').toEqual(['w1', 'w2', 'w3']);
}

describe('dagent resume of a node killed after step 2 of 4', () => {
  it('goes on from step 2 in a shared git workspace: only the remaining model calls, the files right', async () => {
    gitInit();
    shareWorkingCopy();
    const { resume, id } = await killDuringThirdModelCall();
    expect(resume.code, describeExit(resume)).toBe(0);
    expect(resume.stdout).toContain('⏵ steps resumed after step 2');
    expectOnlyRemainingCalls();
    const [resumed] = nodeEvents('step/resumed').map((event) => JSON.parse(event.payload) as Record<string, unknown>);
    expect(resumed).toMatchObject({ fromStep: 2, rerun: 'model-call', modelCalls: 2, interrupted: [] });
    expect(nodeEvents('step/checkpointed').map((event) => event.step)).toEqual([1, 2, 4]);
    for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']]) expect(readFileSync(join(workspace, path!), 'utf8')).toBe(content);
    expect(nodeEvents('node/started')).toHaveLength(2);
    expect(nodeEvents('node/snapshotted'), 'the resumed attempt keeps the boundary where the node began').toHaveLength(1);

    const status = await dagent('status', id);
    expect(status.stdout).toContain('steps resumed from step 2: its completed steps were not run again');
    expect(status.stdout).toContain('1 resumed from their last step');
    const inspect = await dagent('inspect', id, '--node', 'steps');
    expect(inspect.stdout).toContain('resumed from step 2');
  });

  it('goes on from step 2 with isolated workspaces (a commit per step on the node\'s line)', async () => {
    gitInit();
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: 'worktree' }));
    const { resume } = await killDuringThirdModelCall();
    expect(resume.code, describeExit(resume)).toBe(0);
    expectOnlyRemainingCalls();
    for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']]) expect(readFileSync(join(workspace, path!), 'utf8')).toBe(content);
    const merged = nodeEvents('node/merged').map((event) => JSON.parse(event.payload) as { files: string[] });
    expect(merged.map((event) => event.files)).toEqual([['out/one.txt', 'out/three.txt', 'out/two.txt']]);
  });

  it("takes step 2's checkpoint on resume when the process died before it was stored (it is made while step 3's model call goes out)", async () => {
    gitInit();
    // Each `git add` takes 2 s: step 2's checkpoint is still being made when step 3's request is in the log.
    const slowAdd = join(dir.dir, 'slow-git');
    mkdirSync(slowAdd);
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(slowAdd, 'git'), `#!/bin/sh\ncase " $* " in\n  *" add "*) sleep 2 ;;\nesac\nexec ${realGit} "$@"\n`, { mode: 0o755 });
    const turns = [write('out/one.txt', 'one\n', 'w1'), write('out/two.txt', 'two\n', 'w2'), write('out/three.txt', 'three\n', 'w3'), { text: 'Wrote the three files.' }];
    writeScript(turns.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn)));
    const run = spawnCli(['plan', '--from', planFile, '--yes', ...FLAGS()], workspace, { env: { HOME: dir.dir, PATH: `${slowAdd}:${process.env.PATH ?? ''}` } });
    await killWhen(run, (events) => events.some((event) => event.node_id === 'steps' && event.type === 'request/header' && event.step === 3));
    expect(nodeEvents('step/checkpointed').map((event) => event.step), "step 2's checkpoint was not stored").toEqual([1]);

    writeScript(turns);
    const resume = await dagent('resume', runId(), ...FLAGS());

    expect(resume.code, describeExit(resume)).toBe(0);
    expectOnlyRemainingCalls();
    const [resumed] = nodeEvents('step/resumed').map((event) => JSON.parse(event.payload) as Record<string, unknown>);
    expect(resumed).toMatchObject({ fromStep: 2, rerun: 'model-call', interrupted: [] });
    // Step 2's checkpoint, taken by the resumed attempt from the files as the killed one left them.
    const checkpoints = nodeEvents('step/checkpointed').map((event) => [event.step, (JSON.parse(event.payload) as { attempt: number }).attempt]);
    expect(checkpoints).toEqual([[1, 1], [2, 2], [4, 2]]);
    for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']]) expect(readFileSync(join(workspace, path!), 'utf8')).toBe(content);
  });

  for (const kind of ['git', 'plain'] as const) {
    it(`reports a command killed mid-run as interrupted, puts its files back, and never runs it again (${kind} workspace)`, async () => {
      // Git-backed snapshots of the shared working copy (a git repository's default is a worktree per node).
      if (kind === 'git') {
        gitInit();
        shareWorkingCopy();
      }
      const command = 'echo started > out/partial.txt && sleep 60 && echo done > out/late.txt';
      writeScript([
        write('out/one.txt', 'one\n', 'w1'),
        write('out/two.txt', 'two\n', 'w2'),
        { toolCalls: [{ id: 'c3', name: 'run_command', args: { command } }] },
        write('out/three.txt', 'three\n', 'w4'),
        { text: 'Wrote the files; the command was interrupted.' },
      ]);
      const run = spawnCli(['plan', '--from', planFile, '--yes', ...FLAGS()], workspace, { env: { HOME: dir.dir } });
      await killWhen(run, (events) => events.some((event) => event.node_id === 'steps' && event.type === 'command/started') && existsSync(join(workspace, 'out', 'partial.txt')));
      const resume = await dagent('resume', runId(), ...FLAGS());
      expect(resume.code, describeExit(resume)).toBe(0);

      const answers = nodeEvents('assistant/message').map((event) => event.step);
      expect(answers, 'no model call made again').toEqual([1, 2, 3, 4, 5]);
      expect(nodeEvents('request/header').map((event) => event.step)).toEqual([1, 2, 3, 4, 5]);
      const results = nodeEvents('tool/result').map((event) => JSON.parse(event.payload) as { toolCallId: string; content: string; meta: { outcome: string } });
      expect(results.map((result) => result.toolCallId)).toEqual(['w1', 'w2', 'c3', 'w4']);
      const interrupted = results.find((result) => result.toolCallId === 'c3')!;
      expect(interrupted.meta.outcome).toBe('interrupted');
      expect(interrupted.content).toContain('put back to how they were before this step');
      expect(nodeEvents('command/started'), 'the command ran once').toHaveLength(1);
      const [resumed] = nodeEvents('step/resumed').map((event) => JSON.parse(event.payload) as Record<string, unknown>);
      expect(resumed).toMatchObject({ fromStep: 2, rerun: 'none', interrupted: ['c3'], restored: ['out/partial.txt'], modelCalls: 3 });
      expect(existsSync(join(workspace, 'out', 'partial.txt')), 'the half-done command undone').toBe(false);
      expect(existsSync(join(workspace, 'out', 'late.txt'))).toBe(false);
      for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']]) expect(readFileSync(join(workspace, path!), 'utf8')).toBe(content);
    });
  }
});

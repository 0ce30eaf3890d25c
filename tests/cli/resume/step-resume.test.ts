import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { killRunningClis, type CliExit, type CliProcess } from '../../helpers/crash-process.js';
import { describeExit, resumeWorkspace, waitForLog, write, type ResumeWorkspace, type Row } from './resume-workspace.js';

/**
 * `kill -9` of a run while a node is halfway through its steps, then `dagent resume`: the node goes
 * on from its last completed step. Its recorded answers and tool results are kept (no model call
 * made for them again), its files are put back to the checkpoint of that step, and a command that
 * was running when the process died is reported to the model as interrupted, never run twice.
 * The kill is timed by the log (the events the test waits for), never by a sleep.
 */

vi.setConfig({ testTimeout: 120_000 });

let ws: ResumeWorkspace;

beforeEach(() => {
  ws = resumeWorkspace('dagent-step-resume-');
});
afterEach(() => ws.cleanup());
afterAll(() => killRunningClis());

/** Waits until the log holds an event `found` accepts, then `kill -9` of the process. */
async function killWhen(cli: CliProcess, found: (events: readonly Row[]) => boolean): Promise<void> {
  await waitForLog(cli, () => ws.readEvents(), found);
  process.kill(cli.child.pid!, 'SIGKILL');
  await cli.exited;
}

/** Kills the run while the model call of step 3 is in flight (its request is in the log), then resumes it. */
async function killDuringThirdModelCall(): Promise<{ resume: CliExit; id: string }> {
  const turns = [write('out/one.txt', 'one\n', 'w1'), write('out/two.txt', 'two\n', 'w2'), write('out/three.txt', 'three\n', 'w3'), { text: 'Wrote the three files.' }];
  ws.writeScript(turns.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn)));
  const run = ws.spawn(['plan', '--from', ws.planFile, '--yes', ...ws.flags()]);
  await killWhen(run, (events) => events.some((event) => event.node_id === 'steps' && event.type === 'request/header' && event.step === 3));
  // The same turns, answered at once this time.
  ws.writeScript(turns);
  const id = ws.runId();
  return { resume: await ws.dagent('resume', id, ...ws.flags()), id };
}

function expectOnlyRemainingCalls(): void {
  const answers = ws.nodeEvents('assistant/message');
  expect(answers.map((event) => event.step), 'one answer per step, none repeated').toEqual([1, 2, 4, 5]);
  const requests = ws.nodeEvents('request/header').map((event) => event.step);
  // Steps 1 and 2 were asked once; the call in flight at step 3 is the one paid again (as step 4).
  expect(requests).toEqual([1, 2, 3, 4, 5]);
  const results = ws.nodeEvents('tool/result').map((event) => (JSON.parse(event.payload) as { toolCallId: string }).toolCallId);
  expect(results, 'each write ran once').toEqual(['w1', 'w2', 'w3']);
}

describe('dagent resume of a node killed after step 2 of 4', () => {
  it('goes on from step 2 in a shared git workspace: only the remaining model calls, the files right', async () => {
    ws.gitInit();
    ws.isolation('shared');
    const { resume, id } = await killDuringThirdModelCall();
    expect(resume.code, describeExit(resume)).toBe(0);
    expect(resume.stdout).toContain('⏵ steps resumed after step 2');
    expectOnlyRemainingCalls();
    const [resumed] = ws.nodeEvents('step/resumed').map((event) => JSON.parse(event.payload) as Record<string, unknown>);
    expect(resumed).toMatchObject({ fromStep: 2, rerun: 'model-call', modelCalls: 2, interrupted: [] });
    expect(ws.nodeEvents('step/checkpointed').map((event) => event.step)).toEqual([1, 2, 4]);
    for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']]) expect(readFileSync(join(ws.workspace, path!), 'utf8')).toBe(content);
    expect(ws.nodeEvents('node/started')).toHaveLength(2);
    expect(ws.nodeEvents('node/snapshotted'), 'the resumed attempt keeps the boundary where the node began').toHaveLength(1);

    const status = await ws.dagent('status', id);
    expect(status.stdout).toContain('steps resumed from step 2: its completed steps were not run again');
    expect(status.stdout).toContain('1 resumed from their last step');
    const inspect = await ws.dagent('inspect', id, '--node', 'steps');
    expect(inspect.stdout).toContain('resumed from step 2');
  });

  it('goes on from step 2 with isolated workspaces (a commit per step on the node\'s line)', async () => {
    ws.gitInit();
    ws.isolation('worktree');
    const { resume } = await killDuringThirdModelCall();
    expect(resume.code, describeExit(resume)).toBe(0);
    expectOnlyRemainingCalls();
    for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']]) expect(readFileSync(join(ws.workspace, path!), 'utf8')).toBe(content);
    const merged = ws.nodeEvents('node/merged').map((event) => JSON.parse(event.payload) as { files: string[] });
    expect(merged.map((event) => event.files)).toEqual([['out/one.txt', 'out/three.txt', 'out/two.txt']]);
  });

  it("takes step 2's checkpoint on resume when the process died before it was stored (it is made while step 3's model call goes out)", async () => {
    ws.gitInit();
    // Each `git add` takes 2 s: step 2's checkpoint is still being made when step 3's request is in the log.
    const slowAdd = join(ws.dir, 'slow-git');
    mkdirSync(slowAdd);
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(slowAdd, 'git'), `#!/bin/sh\ncase " $* " in\n  *" add "*) sleep 2 ;;\nesac\nexec ${realGit} "$@"\n`, { mode: 0o755 });
    const turns = [write('out/one.txt', 'one\n', 'w1'), write('out/two.txt', 'two\n', 'w2'), write('out/three.txt', 'three\n', 'w3'), { text: 'Wrote the three files.' }];
    ws.writeScript(turns.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn)));
    const run = ws.spawn(['plan', '--from', ws.planFile, '--yes', ...ws.flags()], { PATH: `${slowAdd}:${process.env.PATH ?? ''}` });
    await killWhen(run, (events) => events.some((event) => event.node_id === 'steps' && event.type === 'request/header' && event.step === 3));
    expect(ws.nodeEvents('step/checkpointed').map((event) => event.step), "step 2's checkpoint was not stored").toEqual([1]);

    ws.writeScript(turns);
    const resume = await ws.dagent('resume', ws.runId(), ...ws.flags());

    expect(resume.code, describeExit(resume)).toBe(0);
    expectOnlyRemainingCalls();
    const [resumed] = ws.nodeEvents('step/resumed').map((event) => JSON.parse(event.payload) as Record<string, unknown>);
    expect(resumed).toMatchObject({ fromStep: 2, rerun: 'model-call', interrupted: [] });
    // Step 2's checkpoint, taken by the resumed attempt from the files as the killed one left them.
    const checkpoints = ws.nodeEvents('step/checkpointed').map((event) => [event.step, (JSON.parse(event.payload) as { attempt: number }).attempt]);
    expect(checkpoints).toEqual([[1, 1], [2, 2], [4, 2]]);
    for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']]) expect(readFileSync(join(ws.workspace, path!), 'utf8')).toBe(content);
  });

  for (const kind of ['git', 'plain'] as const) {
    it(`reports a command killed mid-run as interrupted, puts its files back, and never runs it again (${kind} workspace)`, async () => {
      // Git-backed snapshots of the shared working copy (a git repository's default is a worktree per node).
      if (kind === 'git') {
        ws.gitInit();
        ws.isolation('shared');
      }
      const command = 'echo started > out/partial.txt && sleep 60 && echo done > out/late.txt';
      ws.writeScript([
        write('out/one.txt', 'one\n', 'w1'),
        write('out/two.txt', 'two\n', 'w2'),
        { toolCalls: [{ id: 'c3', name: 'run_command', args: { command } }] },
        write('out/three.txt', 'three\n', 'w4'),
        { text: 'Wrote the files; the command was interrupted.' },
      ]);
      const run = ws.spawn(['plan', '--from', ws.planFile, '--yes', ...ws.flags()]);
      await killWhen(run, (events) => events.some((event) => event.node_id === 'steps' && event.type === 'command/started') && existsSync(join(ws.workspace, 'out', 'partial.txt')));
      const resume = await ws.dagent('resume', ws.runId(), ...ws.flags());
      expect(resume.code, describeExit(resume)).toBe(0);

      const answers = ws.nodeEvents('assistant/message').map((event) => event.step);
      expect(answers, 'no model call made again').toEqual([1, 2, 3, 4, 5]);
      expect(ws.nodeEvents('request/header').map((event) => event.step)).toEqual([1, 2, 3, 4, 5]);
      const results = ws.nodeEvents('tool/result').map((event) => JSON.parse(event.payload) as { toolCallId: string; content: string; meta: { outcome: string } });
      expect(results.map((result) => result.toolCallId)).toEqual(['w1', 'w2', 'c3', 'w4']);
      const interrupted = results.find((result) => result.toolCallId === 'c3')!;
      expect(interrupted.meta.outcome).toBe('interrupted');
      expect(interrupted.content).toContain('put back to how they were before this step');
      expect(ws.nodeEvents('command/started'), 'the command ran once').toHaveLength(1);
      const [resumed] = ws.nodeEvents('step/resumed').map((event) => JSON.parse(event.payload) as Record<string, unknown>);
      expect(resumed).toMatchObject({ fromStep: 2, rerun: 'none', interrupted: ['c3'], restored: ['out/partial.txt'], modelCalls: 3 });
      expect(existsSync(join(ws.workspace, 'out', 'partial.txt')), 'the half-done command undone').toBe(false);
      expect(existsSync(join(ws.workspace, 'out', 'late.txt'))).toBe(false);
      for (const [path, content] of [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']]) expect(readFileSync(join(ws.workspace, path!), 'utf8')).toBe(content);
    });
  }
});

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { killRunningClis, type CliExit } from '../../helpers/crash-process.js';
import { describeExit, resumeWorkspace, STEPS_PLAN, waitForLog, write, type ResumeWorkspace, type Row } from './resume-workspace.js';

/**
 * `dagent cancel` of a run while a node is halfway through its steps, or a pause at the run's
 * budget, then `dagent resume`: the node goes on from its last completed step, as after a kill.
 * Its answered model calls are not made (nor paid) again, its files are those of that step (in the
 * shared working copy, or its new worktree checked out from its steps line), a command the stop
 * aborted is reported as interrupted and never run twice. A plan changed since the stop starts
 * the node over. The stop is timed by the log (the events the test waits for), never by a sleep.
 */

vi.setConfig({ testTimeout: 120_000 });

let ws: ResumeWorkspace;

beforeEach(() => {
  ws = resumeWorkspace('dagent-stopped-resume-');
});
afterEach(() => ws.cleanup());
afterAll(() => killRunningClis());

const WRITES = [write('out/one.txt', 'one\n', 'w1'), write('out/two.txt', 'two\n', 'w2'), write('out/three.txt', 'three\n', 'w3'), { text: 'Wrote the three files.' }];

/** Runs the plan with `turns` and, once `found` accepts the log, `dagent cancel` from another process; resolves when the run has ended. */
async function cancelWhen(turns: readonly unknown[], found: (events: readonly Row[]) => boolean): Promise<{ run: CliExit; cancel: CliExit; id: string }> {
  ws.writeScript(turns);
  const running = ws.spawn(['plan', '--from', ws.planFile, '--yes', ...ws.flags()]);
  await waitForLog(running, () => ws.readEvents(), found);
  const id = ws.runId();
  const cancel = await ws.dagent('cancel', id);
  return { run: await running.exited, cancel, id };
}

const inFlight = (step: number) => (events: readonly Row[]): boolean => events.some((event) => event.node_id === 'steps' && event.type === 'request/header' && event.step === step);
const payloadOf = <T>(row: Row): T => JSON.parse(row.payload) as T;
const expectFiles = (files: readonly [string, string][]): void => {
  for (const [path, content] of files) expect(readFileSync(join(ws.workspace, path), 'utf8'), path).toBe(content);
};
const ALL_THREE: [string, string][] = [['out/one.txt', 'one\n'], ['out/two.txt', 'two\n'], ['out/three.txt', 'three\n']];

/** Cancels the run while step 3's model call is in flight (step 3's turn takes a minute), then resumes it with the same turns answered at once. */
async function cancelDuringThirdModelCall(): Promise<{ resume: CliExit; id: string }> {
  const { run, cancel, id } = await cancelWhen(
    WRITES.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn)),
    inFlight(3),
  );
  expect(cancel.code, describeExit(cancel)).toBe(0);
  expect(run.stdout).toContain(`run ${id} cancelled`);
  expect(ws.nodeEvents('node/cancelled')).toHaveLength(1);
  ws.writeScript(WRITES);
  return { resume: await ws.dagent('resume', id, ...ws.flags()), id };
}

/** Steps 1 and 2 asked once, the call in flight at step 3 asked again (as step 4), each write run once. */
function expectOnlyRemainingCalls(): void {
  expect(ws.nodeEvents('assistant/message').map((event) => event.step), 'one answer per step, none repeated').toEqual([1, 2, 4, 5]);
  expect(ws.nodeEvents('request/header').map((event) => event.step)).toEqual([1, 2, 3, 4, 5]);
  expect(ws.nodeEvents('tool/result').map((event) => payloadOf<{ toolCallId: string }>(event).toolCallId), 'each write ran once').toEqual(['w1', 'w2', 'w3']);
}

describe('dagent resume of a node the run\'s cancel stopped after step 2 of 4', () => {
  it('goes on from step 2 in a shared git workspace: only the remaining model calls, the files right', async () => {
    ws.gitInit();
    ws.isolation('shared');
    const { resume, id } = await cancelDuringThirdModelCall();

    expect(resume.code, describeExit(resume)).toBe(0);
    expect(resume.stdout).toContain('⏵ steps resumed after step 2 · the model call in flight runs again · 2 model calls not repeated');
    expectOnlyRemainingCalls();
    expect(payloadOf(ws.nodeEvents('step/resumed')[0]!)).toMatchObject({ attempt: 2, fromStep: 2, rerun: 'model-call', modelCalls: 2, interrupted: [] });
    expect(ws.nodeEvents('node/snapshotted'), 'the resumed attempt keeps the boundary where the node began').toHaveLength(1);
    expectFiles(ALL_THREE);
    expect((await ws.dagent('status', id)).stdout).toContain('steps resumed from step 2: its completed steps were not run again');
    const diff = await ws.dagent('diff', id, '--node', 'steps');
    for (const path of ['out/one.txt', 'out/two.txt', 'out/three.txt']) expect(diff.stdout, 'the node\'s change counts from where it began').toContain(path);
  });

  it('goes on from step 2 with isolated workspaces: its new worktree is checked out from its steps line, nothing dropped', async () => {
    ws.gitInit();
    ws.isolation('worktree');
    const { resume } = await cancelDuringThirdModelCall();

    expect(resume.code, describeExit(resume)).toBe(0);
    expectOnlyRemainingCalls();
    expect(ws.nodeEvents('workspace/discarded'), "the stopped attempt's change is kept on its steps line").toEqual([]);
    // Steps 1 and 2 wrote one.txt and two.txt in the cancelled worktree; only three.txt was written after the resume.
    expect(ws.nodeEvents('node/merged').map((event) => payloadOf<{ files: string[] }>(event).files)).toEqual([['out/one.txt', 'out/three.txt', 'out/two.txt']]);
    expectFiles(ALL_THREE);
  });

  it('reports a command the cancel stopped as interrupted, puts its files back, and never runs it again', async () => {
    ws.gitInit();
    ws.isolation('shared');
    const turns = [
      write('out/one.txt', 'one\n', 'w1'),
      write('out/two.txt', 'two\n', 'w2'),
      { toolCalls: [{ id: 'c3', name: 'run_command', args: { command: 'echo started > out/partial.txt && sleep 60 && echo done > out/late.txt' } }] },
      write('out/three.txt', 'three\n', 'w4'),
      { text: 'Wrote the files; the command was interrupted.' },
    ];
    const { id } = await cancelWhen(turns, (events) => events.some((event) => event.node_id === 'steps' && event.type === 'command/started') && existsSync(join(ws.workspace, 'out', 'partial.txt')));
    const resume = await ws.dagent('resume', id, ...ws.flags());

    expect(resume.code, describeExit(resume)).toBe(0);
    expect(resume.stdout).toContain('⏵ steps resumed after step 2 · 1 file put back as after step 2 · 1 interrupted call not run again · 3 model calls not repeated');
    expect(ws.nodeEvents('request/header').map((event) => event.step), 'no model call made again').toEqual([1, 2, 3, 4, 5]);
    expect(ws.nodeEvents('command/started'), 'the command ran once').toHaveLength(1);
    const results = ws.nodeEvents('tool/result').map((event) => payloadOf<{ toolCallId: string; meta: { outcome: string } }>(event));
    // The log keeps the cancel's own result; the interrupted one takes its place in what the model reads.
    expect(results.map((result) => [result.toolCallId, result.meta.outcome])).toEqual([['w1', 'ok'], ['w2', 'ok'], ['c3', 'aborted'], ['c3', 'interrupted'], ['w4', 'ok']]);
    const inspect = await ws.dagent('inspect', id, '--node', 'steps', '--step', '4');
    expect(inspect.stdout).toContain('put back to how they were before this step');
    expect(inspect.stdout).not.toContain('aborted: the run was cancelled');
    expect(payloadOf(ws.nodeEvents('step/resumed')[0]!)).toMatchObject({ fromStep: 2, rerun: 'none', interrupted: ['c3'], restored: ['out/partial.txt'] });
    expect(existsSync(join(ws.workspace, 'out', 'partial.txt')), 'the half-done command undone').toBe(false);
    expect(existsSync(join(ws.workspace, 'out', 'late.txt'))).toBe(false);
    expectFiles(ALL_THREE);
  });

  it('with isolated workspaces, a write done beside the stopped command is kept: the new worktree is as the stopped one was left', async () => {
    ws.gitInit();
    ws.isolation('worktree');
    const both = { toolCalls: [...write('out/three.txt', 'three\n', 'w3').toolCalls, { id: 'c3', name: 'run_command', args: { command: 'sleep 60' } }] };
    const turns = [WRITES[0], WRITES[1], both, { text: 'Wrote the files; the command was interrupted.' }];
    const written = (events: readonly Row[]): boolean => events.some((event) => event.type === 'tool/result' && payloadOf<{ toolCallId: string }>(event).toolCallId === 'w3');
    const { id } = await cancelWhen(turns, (events) => written(events) && events.some((event) => event.node_id === 'steps' && event.type === 'command/started'));
    const resume = await ws.dagent('resume', id, ...ws.flags());

    expect(resume.code, describeExit(resume)).toBe(0);
    expect(ws.nodeEvents('request/header').map((event) => event.step), 'no model call made again').toEqual([1, 2, 3, 4]);
    expect(ws.nodeEvents('command/started'), 'the command ran once').toHaveLength(1);
    // Step 3's first checkpoint was taken as the cancel ended the step: the files as left, which the new worktree starts from.
    expect(ws.nodeEvents('step/checkpointed').map((event) => event.step)).toEqual([1, 2, 3, 3]);
    expect(payloadOf(ws.nodeEvents('step/resumed')[0]!)).toMatchObject({ fromStep: 2, rerun: 'none', interrupted: ['c3'] });
    expect(ws.nodeEvents('tool/result').map((event) => payloadOf<{ toolCallId: string }>(event).toolCallId), 'the write ran once').toEqual(['w1', 'w2', 'w3', 'c3', 'c3']);
    expect(ws.nodeEvents('node/merged').map((event) => payloadOf<{ files: string[] }>(event).files)).toEqual([['out/one.txt', 'out/three.txt', 'out/two.txt']]);
    expectFiles(ALL_THREE);
  });

  it('starts the node over when the plan changed since the cancel (a new version imported)', async () => {
    ws.gitInit();
    ws.isolation('shared');
    const { id } = await cancelWhen(WRITES.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn)), inFlight(3));
    const edited = join(ws.dir, 'edited.json');
    writeFileSync(edited, JSON.stringify({ ...STEPS_PLAN, nodes: [{ ...STEPS_PLAN.nodes[0], instructions: 'Write out/one.txt, out/two.txt and out/three.txt, one line each.' }] }));
    for (const args of [['import', id, edited], ['approve', id]]) {
      const done = await ws.dagent(...args);
      expect(done.code, describeExit(done)).toBe(0);
    }
    ws.writeScript(WRITES);
    const resume = await ws.dagent('resume', id, ...ws.flags());

    expect(resume.code, describeExit(resume)).toBe(0);
    expect(ws.nodeEvents('step/resumed')).toEqual([]);
    expect(ws.nodeEvents('node/snapshotted'), 'a new attempt from the start').toHaveLength(2);
    expect(resume.stdout).toContain('↺ steps starts over: its work changed in plan v2; its 2 answered model calls are made again');
    expect(ws.nodeEvents('request/header').map((event) => event.step)).toEqual([1, 2, 3, 1, 2, 3, 4]);
    expectFiles(ALL_THREE);
  });
});

describe('dagent resume of a run paused at its budget in the middle of a node', () => {
  it('goes on from the node\'s last step under the higher cap the pause suggests: the calls made are not paid again', async () => {
    ws.gitInit();
    // Step 2's answer costs 10 000 tokens: the third call (about 5 600 more) would cross a cap of 12 000.
    const usage = (input: number) => ({ usage: { input, output: 5, cacheHit: 0, reasoning: 0 } });
    ws.writeScript([{ ...WRITES[0], ...usage(10) }, { ...WRITES[1], ...usage(10_000) }, WRITES[2], WRITES[3]]);
    const run = await ws.dagent('plan', '--from', ws.planFile, '--yes', ...ws.flags('--max-tokens', '12000'));
    const id = ws.runId();

    expect(run.code, describeExit(run)).toBe(0);
    const suggested = /dagent resume \S+ --max-tokens (\d+)/.exec(run.stdout);
    expect(suggested, run.stdout).not.toBeNull();
    expect(ws.nodeEvents('budget/reached')).toHaveLength(1);
    expect(ws.nodeEvents('node/cancelled')).toHaveLength(1);
    const resume = await ws.dagent('resume', id, ...ws.flags('--max-tokens', suggested![1]!));

    expect(resume.code, describeExit(resume)).toBe(0);
    expect(resume.stdout).toContain('⏵ steps resumed after step 2 · 2 model calls not repeated');
    expect(resume.stdout).toContain(`run ${id} succeeded`);
    // The refused call was never sent: the two answered calls were asked once, the rest after the resume.
    expect(ws.nodeEvents('request/header').map((event) => event.step)).toEqual([1, 2, 3, 4]);
    expect(ws.nodeEvents('assistant/message').map((event) => event.step)).toEqual([1, 2, 3, 4]);
    expect(payloadOf(ws.nodeEvents('step/resumed')[0]!)).toMatchObject({ fromStep: 2, rerun: 'none', modelCalls: 2, saved: { input: 10_010, output: 10 } });
    expectFiles(ALL_THREE);
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { killRunningClis } from '../../helpers/crash-process.js';
import { STEPS_PLAN, describeExit, resumeWorkspace, waitForLog, write, type ResumeWorkspace } from './resume-workspace.js';

/**
 * `kill -9` of a run halfway through a node, then a new plan version imported and approved, then
 * `dagent resume`: a node whose instructions the new version changed starts over with them, where
 * it went on from its last step with the old ones; a node the version left alone goes on.
 */

vi.setConfig({ testTimeout: 120_000 });

let ws: ResumeWorkspace;

beforeEach(() => {
  ws = resumeWorkspace('dagent-changed-node-resume-');
  ws.gitInit();
  ws.isolation('shared');
});
afterEach(() => ws.cleanup());
afterAll(() => killRunningClis());

const TURNS = [write('out/one.txt', 'one\n', 'w1'), write('out/two.txt', 'two\n', 'w2'), write('out/three.txt', 'three\n', 'w3'), { text: 'Wrote the three files.' }];

/** Runs the plan and kills it while step 3's model call is in flight. */
async function killedAfterStepTwo(): Promise<string> {
  ws.writeScript(TURNS.map((turn, index) => (index === 2 ? { ...turn, latencyMs: 60_000 } : turn)));
  const run = ws.spawn(['plan', '--from', ws.planFile, '--yes', ...ws.flags()]);
  await waitForLog(run, () => ws.readEvents(), (events) => events.some((event) => event.node_id === 'steps' && event.type === 'request/header' && event.step === 3));
  process.kill(run.child.pid!, 'SIGKILL');
  await run.exited;
  ws.writeScript(TURNS);
  return ws.runId();
}

async function importAndApprove(id: string, instructions: string): Promise<void> {
  const file = join(ws.dir, 'plan-v2.json');
  writeFileSync(file, JSON.stringify({ ...STEPS_PLAN, nodes: [{ ...STEPS_PLAN.nodes[0]!, instructions }] }));
  const imported = await ws.dagent('import', id, file);
  expect(imported.code, describeExit(imported)).toBe(0);
  expect((await ws.dagent('approve', id)).code).toBe(0);
}

describe('dagent resume of a killed node after a new plan version was approved', () => {
  it('starts the node over with its new instructions: no step resumed, the new instruction sent', async () => {
    const id = await killedAfterStepTwo();
    await importAndApprove(id, 'Write out/one.txt, out/two.txt and out/three.txt, each ending with a newline.');

    const resume = await ws.dagent('resume', id, ...ws.flags());

    expect(resume.code, describeExit(resume)).toBe(0);
    expect(ws.nodeEvents('step/resumed'), 'nothing of the old attempt is gone on from').toEqual([]);
    expect(ws.nodeEvents('node/snapshotted'), 'a new attempt, from the node\'s start').toHaveLength(2);
    expect(resume.stdout, 'the user is told why nothing was gone on from').toContain('↺ steps starts over: its work changed in plan v2; its 2 answered model calls are made again');
    const instructions = ws.nodeEvents('user/message').map((event) => (JSON.parse(event.payload) as { content: string }).content);
    expect(instructions.at(-1)).toContain('each ending with a newline');
    expect(readFileSync(join(ws.workspace, 'out/three.txt'), 'utf8')).toBe('three\n');
    expect((await ws.dagent('status', id)).stdout).not.toContain('resumed from step');
  });

  it('goes on from its last step when the new version left the node as it was', async () => {
    const id = await killedAfterStepTwo();
    // The goal changes the node's prompt too: keep it, and change nothing of the node.
    const file = join(ws.dir, 'plan-v2.json');
    writeFileSync(file, JSON.stringify({ ...STEPS_PLAN, nodes: [...STEPS_PLAN.nodes, { id: 'later', kind: 'command', title: 'List', command: 'ls out', reads: [], writes: [], dependsOn: ['steps'] }] }));
    expect((await ws.dagent('import', id, file)).code).toBe(0);
    expect((await ws.dagent('approve', id)).code).toBe(0);

    const resume = await ws.dagent('resume', id, ...ws.flags());

    expect(resume.code, describeExit(resume)).toBe(0);
    expect(ws.nodeEvents('step/resumed')).toHaveLength(1);
    expect(ws.nodeEvents('node/snapshotted')).toHaveLength(1);
  });
});

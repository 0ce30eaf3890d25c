import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli } from '../../helpers/crash-process.js';
import { approvedSmallRun, describeExit, runEvents } from './fleet-harness.js';

/**
 * A run dispatched to workers records the prompts its nodes will send before it starts, as a run
 * in one process does: a worker's first node of each kind sends its request without them.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 120_000;

const root = cliRunsRoot('dagent-fleet-prompts-');

describe.skipIf(postgresUrl === '')('prompts of a run on workers', () => {
  it("are recorded by the run before it starts; the worker's requests name them and carry none", async () => {
    const plan: Plan = {
      goal: 'Rename greeting',
      rationale: 'Read, then edit.',
      nodes: [
        { id: 'read-a', kind: 'read', title: 'Read a', instructions: 'Say what a holds.', reads: ['src/a.txt'], writes: [], dependsOn: [] },
        { id: 'edit-a', kind: 'edit', title: 'Edit a', instructions: 'Say goodbye instead.', reads: ['src/a.txt'], writes: ['src/a.txt'], dependsOn: ['read-a'] },
      ],
    };
    const agents = {
      'node:read-a': [{ text: 'a says hello.' }],
      'node:edit-a': [{ toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'src/a.txt', content: 'goodbye\n' } }] }, { text: 'a says goodbye.' }],
    };
    const run = await approvedSmallRun(postgresUrl, root.dir, 'prompts', plan, agents, ['src/a.txt']);
    const worker = spawnCli(['worker', '--no-sandbox', '-j', '1', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS * 2 });

    const scheduler = spawnCli(['run', run.runId, '--workers', '--no-sandbox', '--no-dashboard', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS });
    const scheduled = await scheduler.exited;
    worker.child.kill('SIGTERM');
    await worker.exited;
    expect(scheduled.code, describeExit(scheduled)).toBe(0);

    const events = await runEvents(run);
    const started = events.find((event) => event.type === 'run/started')!;
    const prompts = events.filter((event) => event.type === 'prompt/recorded');
    // The read nodes' tools and the edit nodes' longer list, recorded by the run, not by a node.
    expect(prompts.map((event) => [event.node_id, event.seq < started.seq])).toEqual([[null, true], [null, true]]);
    const recorded = new Set(prompts.map((event) => `${String(event.payload['systemHash'])}:${String(event.payload['toolsHash'])}`));
    const headers = events.filter((event) => event.type === 'request/header');
    expect(headers.map((event) => event.node_id)).toEqual(['read-a', 'edit-a', 'edit-a']);
    for (const header of headers) expect(recorded.has(`${String(header.payload['systemHash'])}:${String(header.payload['toolsHash'])}`)).toBe(true);
    // The worker ran them.
    expect(events.filter((event) => event.type === 'attempt/finished').map((event) => event.node_id)).toEqual(['read-a', 'edit-a']);
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli } from '../../helpers/crash-process.js';
import { approvedSmallRun, describeExit, runEvents } from './fleet-harness.js';

/**
 * A run's routing holds on its workers: `run --workers --no-routing` records it in the log, and a
 * `dagent worker` whose own config names a small model runs the node the plan marks simple on the
 * run's model all the same.
 */

const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 120_000;

const root = cliRunsRoot('dagent-fleet-routing-');

describe.skipIf(postgresUrl === '')('routing across a scheduler and a worker', () => {
  it('--no-routing given to the run keeps its simple node off the small model on the worker', async () => {
    const plan: Plan = { goal: 'Summarize a', rationale: 'One read.', nodes: [{ id: 'read-a', kind: 'read', title: 'Summarize a', instructions: 'Say what a holds.', reads: ['src/a.txt'], writes: [], dependsOn: [], simple: true }] };
    const run = await approvedSmallRun(postgresUrl, root.dir, 'routing', plan, { 'node:read-a': [{ text: 'a says hello (run model).' }] }, ['src/a.txt']);
    const small = join(root.dir, 'small.json');
    writeFileSync(small, JSON.stringify({ agents: { 'node:read-a': [{ text: 'a says hello (small model).' }] } }));
    const configHome = join(root.dir, 'config');
    mkdirSync(join(configHome, 'dagent'), { recursive: true });
    writeFileSync(join(configHome, 'dagent', 'config.json'), JSON.stringify({ smallModel: `scripted:${small}` }));
    const env = { XDG_CONFIG_HOME: configHome };
    const worker = spawnCli(['worker', '--no-sandbox', '-j', '1', '--claim-ttl', '3000', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS * 2, env });

    const scheduler = spawnCli(['run', run.runId, '--workers', '--no-routing', '--no-dashboard', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS, env });
    const scheduled = await scheduler.exited;
    worker.child.kill('SIGTERM');
    const stopped = await worker.exited;
    expect(scheduled.code, describeExit(scheduled)).toBe(0);
    expect(scheduled.stdout).toContain(`run ${run.runId} succeeded`);
    expect(stopped.code, describeExit(stopped)).toBe(0);

    const events = await runEvents(run);
    expect(events.filter((event) => event.type === 'routing/set').map((event) => event.payload)).toEqual([{ enabled: false }]);
    expect(events.filter((event) => event.type === 'model/routed')).toEqual([]);
    const answers = events.filter((event) => event.type === 'assistant/message' && event.node_id === 'read-a');
    expect(answers.map((event) => event.payload.content)).toEqual(['a says hello (run model).']);
    // The worker ran it, not the scheduler.
    expect(events.some((event) => event.type === 'node/started' && event.node_id === 'read-a')).toBe(true);
  });
});

import { describe, expect, inject, it } from 'vitest';
import type { Plan } from '../../../engine/index.js';
import { cliRunsRoot, spawnCli } from '../../helpers/crash-process.js';
import { approvedSmallRun, describeExit, query, runEvents, until } from '../../engine/dispatch/fleet-harness.js';

/**
 * A run on PostgreSQL opens the store connections its first stage needs with the rest of its
 * set-up: the stage's nodes do not each wait for a new server process in the middle of it.
 */
const postgresUrl = inject('postgresUrl');

const root = cliRunsRoot('dagent-store-connections-');

describe.skipIf(postgresUrl === '')('a run on PostgreSQL', () => {
  it('has a connection for each node it runs at once by the time it starts', async () => {
    const ids = ['read-a', 'read-b', 'read-c', 'read-d'];
    const plan: Plan = {
      goal: 'Read four files',
      rationale: 'Four reads at once.',
      nodes: ids.map((id) => ({ id, kind: 'read', title: `Read ${id}`, instructions: `Read src/${id}.txt.`, reads: [`src/${id}.txt`], writes: [], dependsOn: [] })),
    };
    // Each node's one answer takes a while: the run is still in its first stage when it is looked at.
    const agents = Object.fromEntries(ids.map((id) => [`node:${id}`, [{ text: `${id} read`, latencyMs: 3_000 }]]));
    const run = await approvedSmallRun(postgresUrl, root.dir, 'wide', plan, agents, ids.map((id) => `src/${id}.txt`));
    const database = new URL(run.url).pathname.slice(1);
    const cli = spawnCli(['run', run.runId, '--concurrency', '4', '--no-sandbox', ...run.flags], run.workspace, { timeLimitMs: 60_000 });

    await until('the run started', async () => (await runEvents(run)).some((event) => event.type === 'run/started'), 30_000, [cli]);
    const [started] = await query<{ created_at: string }>(run.url, "SELECT created_at FROM events WHERE run_id = $1 AND type = 'run/started'", [run.runId]);
    const backends = await query<{ backend_start: Date }>(run.url, "SELECT backend_start FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'", [database]);
    const openedBefore = backends.filter((backend) => backend.backend_start.getTime() <= Date.parse(started!.created_at));

    // Four for the nodes, and the run's follower of its log: all open before the run starts.
    expect(openedBefore.length).toBeGreaterThanOrEqual(5);
    const exit = await cli.exited;
    expect(exit.code, describeExit(exit)).toBe(0);
  });
});

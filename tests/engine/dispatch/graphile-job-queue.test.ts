import { describe, expect, inject, it } from 'vitest';
import { createGraphileJobQueue, runQueueTasks } from '../../../engine/dispatch/graphile-job-queue.js';
import { createDatabase, query } from './fleet-harness.js';

const postgresUrl = inject('postgresUrl');

/** A fleet starting on a fresh database: every scheduler and worker sets up the job queue at once. */
describe.skipIf(postgresUrl === '')('the job queue on a fresh database', () => {
  it('six queues and two runners set up at the same moment all start, and the schema is made once', async () => {
    const url = await createDatabase(postgresUrl);

    const settingUp = [
      ...Array.from({ length: 6 }, async () => createGraphileJobQueue(url)),
      ...Array.from({ length: 2 }, async () => runQueueTasks(url, { nothing: async () => undefined }, 1)),
    ];
    const outcomes = await Promise.allSettled(settingUp);

    const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []));
    expect(failures).toEqual([]);
    const schemas = await query<{ nspname: string }>(url, "SELECT nspname FROM pg_namespace WHERE nspname = 'graphile_worker'", []);
    expect(schemas).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status !== 'fulfilled') continue;
      const started = outcome.value;
      await ('close' in started ? started.close() : started.stop());
    }
  });
});

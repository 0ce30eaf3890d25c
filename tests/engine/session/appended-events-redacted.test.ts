import { describe, expect, it } from 'vitest';
import { createRun, EventLog, openDatabase, readEvents, type EventDraft, type SessionEvent } from '../../../engine/index.js';
import { appendNodeTransitions } from '../../../engine/run/storage/node-projection.js';
import { REDACTED } from '../../../engine/secret-redactor.js';
import { contractStores } from '../../helpers/contract-stores.js';

const CONFIGURED = 'configured-value-4242-abcd';
const SHAPED = 'ghp_FAKEfakeFAKEfake0123456789abcdefABCD';

describe('a group of events appended at once', () => {
  it('comes back, and reaches the listeners, as stored: redacted wherever in the group a secret was', async () => {
    const store = await openDatabase(':memory:', { secrets: [CONFIGURED] });
    try {
      const run = await createRun(store.db, { task: 'fail loudly', workspace: '/w', mode: 'plan' });
      const log = new EventLog(store.db, run.id);
      const heard: SessionEvent[] = [];
      log.onAppend((events) => heard.push(...events));
      // 22 events: the first goes alone, the rest in statements of 16, 4 and 1 rows.
      const secretAt = new Map([[3, `KEY ${CONFIGURED}`], [17, `token ${SHAPED}`], [21, `again ${CONFIGURED}`]]);
      const drafts: EventDraft[] = Array.from({ length: 22 }, (_, index) => ({
        type: 'node/failed',
        nodeId: `n${index}`,
        payload: { attempt: 1, error: secretAt.get(index) ?? `plain ${index}` },
      }));

      const appended = await log.appendMany(drafts);

      const expected = drafts.map((_, index) => (secretAt.has(index) ? secretAt.get(index)!.replace(/\S+$/, REDACTED) : `plain ${index}`));
      const errors = (events: readonly SessionEvent[]): string[] => events.map((event) => (event.payload as { error: string }).error);
      expect(errors(appended)).toEqual(expected);
      expect(errors(heard)).toEqual(expected);
      expect(errors((await readEvents(store.db, run.id)).filter((event) => event.type === 'node/failed'))).toEqual(expected);
    } finally {
      await store.close();
    }
  });
});

/** Every way an append reaches the store, on every backend: PostgreSQL's are single statements that begin with `WITH`. */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`secrets in appended events: ${backend.name}`, () => {
    it('never reach the store, whichever way the append is written: alone, grouped, with node rows', async () => {
      const { store, cleanup } = await backend.open({ secrets: [CONFIGURED] });
      try {
        const run = await createRun(store.db, { task: 'rotate keys', workspace: '/w', mode: 'plan' });
        await store.db.updateTable('runs').set({ status: 'approved' }).where('id', '=', run.id).execute();
        const log = new EventLog(store.db, run.id);
        const heard: SessionEvent[] = [];
        log.onAppend((events) => heard.push(...events));

        await log.append({ type: 'run/started', payload: { host: `host ${CONFIGURED}` } });
        await store.db.insertInto('nodes').values({ run_id: run.id, node_id: 'rotate', plan_version: 1, status: 'pending', attempts: 0, started_at: null, finished_at: null, result: null, error: null, input_tokens: 0, output_tokens: 0, cache_hit_tokens: 0, reasoning_tokens: 0, cost_usd: 0 }).execute();
        await log.append({ type: 'node/failed', nodeId: 'rotate', payload: { attempt: 1, error: `KEY ${CONFIGURED}` } });
        await Promise.all([
          log.append({ type: 'node/failed', nodeId: 'rotate', payload: { attempt: 2, error: `token ${SHAPED}` } }),
          log.append({ type: 'node/failed', nodeId: 'rotate', payload: { attempt: 3, error: `again ${CONFIGURED}` } }),
        ]);
        await appendNodeTransitions(log, [{ kind: 'succeeded', to: 'succeeded', from: 'running', nodeId: 'rotate', attempts: 4, result: `rotated ${CONFIGURED}` }], {
          planVersion: 1,
          describe: (result: string) => ({ result }),
        });

        const stored = await readEvents(store.db, run.id);
        // What the store holds, and what the run's listeners (dashboard, progress lines, agents) were handed.
        const text = JSON.stringify(stored) + JSON.stringify(await store.db.selectFrom('nodes').selectAll().execute()) + JSON.stringify(heard);
        expect(text).not.toContain(CONFIGURED);
        expect(text).not.toContain(SHAPED);
        expect(stored.filter((event) => event.type === 'node/failed').map((event) => (event.payload as { error: string }).error)).toEqual([`KEY ${REDACTED}`, `token ${REDACTED}`, `again ${REDACTED}`]);
      } finally {
        await cleanup();
      }
    });
  });
}

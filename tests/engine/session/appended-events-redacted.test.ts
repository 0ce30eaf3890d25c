import { describe, expect, it } from 'vitest';
import { createRun, EventLog, openDatabase, readEvents, type EventDraft, type SessionEvent } from '../../../engine/index.js';
import { REDACTED } from '../../../engine/secret-redactor.js';

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

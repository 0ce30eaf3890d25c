import { describe, expect, it } from 'vitest';
import { createRedactionMemo, MEMO_MAX_CHARS, MEMO_MAX_ENTRIES } from '../../../engine/db/redaction-memo.js';
import { createRun, EventLog, openDatabase } from '../../../engine/index.js';
import { createSecretRedactor, REDACTED } from '../../../engine/secret-redactor.js';

const SECRET = 'configured-value-4242-abcd';

describe('the store remembers how it redacted short strings', () => {
  it('redacts a secret every time it is written, not only the first', async () => {
    const store = await openDatabase(':memory:', { secrets: [SECRET] });
    try {
      const run = await createRun(store.db, { task: 'repeat a secret', workspace: '/w', mode: 'react' });
      const log = new EventLog(store.db, run.id);
      const note = { type: 'node/retried' as const, nodeId: 'n', payload: { attempt: 1, delayMs: 0, error: `KEY=${SECRET}` } };

      const stored = [await log.append(note), ...(await log.appendMany([note, note]))];

      expect(stored.map((event) => (event.payload as { error: string }).error)).toEqual([`KEY=${REDACTED}`, `KEY=${REDACTED}`, `KEY=${REDACTED}`]);
      expect(JSON.stringify(await log.read())).not.toContain(SECRET);
    } finally {
      await store.close();
    }
  });

  it('asks the redactor once per short string, always for a long one, and again after it forgot', () => {
    const asked: string[] = [];
    const redactor = createSecretRedactor([SECRET]);
    const redact = createRedactionMemo((value) => {
      asked.push(value);
      return redactor.redactText(value);
    });
    const long = `${'x'.repeat(MEMO_MAX_CHARS)} ${SECRET}`;

    expect([redact(SECRET), redact(SECRET), redact('plain'), redact('plain')]).toEqual([REDACTED, REDACTED, 'plain', 'plain']);
    expect([redact(long), redact(long)]).toEqual([`${'x'.repeat(MEMO_MAX_CHARS)} ${REDACTED}`, `${'x'.repeat(MEMO_MAX_CHARS)} ${REDACTED}`]);
    expect(asked).toEqual([SECRET, 'plain', long, long]);

    for (let index = 0; index < MEMO_MAX_ENTRIES; index += 1) redact(`filler ${index}`);
    asked.length = 0;
    expect(redact(SECRET)).toBe(REDACTED);
    expect(asked).toEqual([SECRET]);
  });
});

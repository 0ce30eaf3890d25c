/** Strings longer than this are redacted every time: they rarely repeat, and keeping them would cost memory. */
export const MEMO_MAX_CHARS = 256;
/** How many short strings the memo remembers; when full it starts again from empty (a run's own strings soon come back). */
export const MEMO_MAX_ENTRIES = 4_096;

/**
 * `redact` remembered for short strings. The store redacts every string it writes, and most of
 * them repeat from statement to statement: the run id, node ids, event types, the timestamp of one
 * transaction, payloads such as `{"attempt":1}`. Scanning one costs a few microseconds whatever its
 * length, more than inserting its row. The redactor is a pure function of its text (its secrets are
 * fixed when the store opens), so a remembered answer is the answer.
 */
export function createRedactionMemo(redact: (value: string) => string): (value: string) => string {
  const answers = new Map<string, string>();
  return (value) => {
    if (value.length > MEMO_MAX_CHARS) return redact(value);
    const known = answers.get(value);
    if (known !== undefined) return known;
    const redacted = redact(value);
    // Forgetting all at once is O(1) per string; evicting the oldest one by one makes a Map skip ever more holes.
    if (answers.size >= MEMO_MAX_ENTRIES) answers.clear();
    answers.set(value, redacted);
    return redacted;
  };
}

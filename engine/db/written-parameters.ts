/**
 * What the store's edge wrote in place of a statement's parameters when it redacted any of them,
 * keyed by the parameter array the statement was given (Kysely hands it to the edge as it is).
 * Lets a writer that needs the stored form of its values (the log, whose appended events are the
 * stored ones) skip `RETURNING` them: that doubles what SQLite pays per inserted row.
 */
const written = new WeakMap<readonly unknown[], readonly unknown[]>();

/** Called by the edge for a write whose parameters it changed. */
export function recordWrittenParameters(given: readonly unknown[], stored: readonly unknown[]): void {
  written.set(given, stored);
}

/** The parameters as the store wrote them: `given` itself unless the edge redacted one of them. */
export function parametersAsWritten(given: readonly unknown[]): readonly unknown[] {
  return written.get(given) ?? given;
}

import type { PendingRow } from './event-inserts.js';

/** Rows a log holds back, by node, to be stored at the front of the node's next append (`EventLog.hold`). */
export class HeldRows {
  readonly #rows = new Map<string | null, PendingRow[]>();

  get size(): number {
    return this.#rows.size;
  }

  hold(row: PendingRow): void {
    this.#rows.set(row.node_id, [...(this.#rows.get(row.node_id) ?? []), row]);
  }

  /** What is held for `nodeIds`, in order, taken from the holding. */
  take(nodeIds: Iterable<string | null>): PendingRow[] {
    const rows: PendingRow[] = [];
    for (const nodeId of new Set(nodeIds)) {
      const held = this.#rows.get(nodeId);
      if (held === undefined) continue;
      this.#rows.delete(nodeId);
      rows.push(...held);
    }
    return rows;
  }

  /** Rows whose store failed, held again in front of what was held since. */
  putBack(rows: readonly PendingRow[]): void {
    for (const row of [...rows].reverse()) this.#rows.set(row.node_id, [row, ...(this.#rows.get(row.node_id) ?? [])]);
  }
}

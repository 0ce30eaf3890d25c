import type { EventType, SessionEvent } from './event-types.js';

/**
 * What one process knows of the writes to a run's log: the events it appended through the run's
 * live log, by type, and the other processes' inserts a follower listening for the run heard, by
 * type where their notification named them. A reader that keeps a mark reads the store again only
 * when the mark moved. A follower may hear only some types (a worker's, the control types): a mark
 * of a type no follower hears is not known, unless the reader says only this process writes it.
 */
export class KnownWrites {
  /** What each listening follower hears of the other processes' inserts: some types, or all. */
  readonly #watchers: (ReadonlySet<string> | 'all')[] = [];
  /** Other processes' inserts whose types were not said. */
  #otherWrites = 0;
  /** Other processes' inserts by type, as their notifications named them. */
  readonly #otherByType = new Map<string, number>();
  /** This process's appends by node and type (`node NUL type`; run-level events under ''). */
  readonly #appended = new Map<string, number>();
  /** This process's appends by type, whatever their node. */
  readonly #appendedByType = new Map<string, number>();
  #lastAppendedSeq = 0;

  /**
   * A number that changes whenever an event of `nodeId` (null: the run's own) of one of `types`
   * may have been written to the run since it was taken: by this process, or by another one (as a
   * follower heard it). `undefined` while no follower hears every one of `types` from the other
   * processes: then only the store can say. `ownOnly`: those of `types` only this process writes
   * for `nodeId` (a running node's delivered words): counted from its own appends alone.
   */
  mark(nodeId: string | null, types: readonly EventType[], ownOnly: readonly EventType[] = []): number | undefined {
    if (!this.#knows(types, ownOnly)) return undefined;
    let mark = this.#otherWrites;
    for (const type of types) mark += (this.#appended.get(appendedKey(nodeId, type)) ?? 0) + (this.#otherByType.get(type) ?? 0);
    return mark;
  }

  /** `mark` for events of `types` of any node of the run. */
  markOfTypes(types: readonly EventType[]): number | undefined {
    if (!this.#knows(types)) return undefined;
    let mark = this.#otherWrites;
    for (const type of types) mark += (this.#appendedByType.get(type) ?? 0) + (this.#otherByType.get(type) ?? 0);
    return mark;
  }

  /** The highest seq this process stored: every seq up to it is committed, and seen by any later read. */
  get lastAppendedSeq(): number {
    return this.#lastAppendedSeq;
  }

  /** Events this process stored. */
  noteAppended(events: readonly SessionEvent[]): void {
    for (const event of events) {
      const key = appendedKey(event.nodeId, event.type);
      this.#appended.set(key, (this.#appended.get(key) ?? 0) + 1);
      this.#appendedByType.set(event.type, (this.#appendedByType.get(event.type) ?? 0) + 1);
      if (event.seq > this.#lastAppendedSeq) this.#lastAppendedSeq = event.seq;
    }
  }

  /** A follower listens for other processes' inserts into the run (of `heard` types, or all) until the returned function is called. */
  watchOthers(heard: ReadonlySet<string> | 'all' = 'all'): () => void {
    this.#watchers.push(heard);
    let watching = true;
    return () => {
      if (watching) this.#watchers.splice(this.#watchers.indexOf(heard), 1);
      watching = false;
    };
  }

  /** Whether every write of `types` reaches this process: those of `ownOnly` only it writes, the others a listening follower hears. */
  #knows(types: readonly EventType[], ownOnly: readonly EventType[] = []): boolean {
    return this.#watchers.length > 0 && types.every((type) => ownOnly.includes(type) || this.#watchers.some((heard) => heard === 'all' || heard.has(type)));
  }

  /** Another process inserted events into the run (a listening follower heard it): of `types`, or of any type when not said. */
  noteOtherWrites(types?: readonly string[]): void {
    if (types === undefined) this.#otherWrites += 1;
    else for (const type of types) this.#otherByType.set(type, (this.#otherByType.get(type) ?? 0) + 1);
  }
}

function appendedKey(nodeId: string | null, type: string): string {
  return `${nodeId ?? ''}\u0000${type}`;
}

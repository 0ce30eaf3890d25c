import { setImmediate } from 'node:timers';

/** One caller's append: its rows, stored together and in order, and whatever else the send needs of it. */
export interface GroupedAppend<Row> {
  readonly rows: readonly Row[];
}

/**
 * A group commit of one process's appends to a run: an append made while none is in flight is
 * sent at once; the appends made meanwhile wait and go together in the next send (one
 * transaction), each caller's rows together and in the order of the calls. When a send of several
 * appends fails, each is sent again alone, in order: an append fails only for a reason of its own
 * (a bad row, an effect that refuses), never for a neighbour's.
 */
export class GroupedAppends<Append extends GroupedAppend<unknown>, Stored> {
  readonly #send: (appends: readonly Append[]) => Promise<readonly Stored[]>;
  #waiting: Waiting<Append, Stored>[] = [];
  #sending = false;

  readonly #gather: boolean;

  /**
   * `send` stores the appends' rows in one go and returns what it stored for each row, in order.
   * `gather`: an append made while none is in flight waits for the work of the current turn of the
   * event loop to be done before it is sent, with the appends made meanwhile (a store whose sends
   * finish at once, as SQLite's do, never has one in flight to group behind).
   */
  constructor(send: (appends: readonly Append[]) => Promise<readonly Stored[]>, options: { gather?: boolean } = {}) {
    this.#send = send;
    this.#gather = options.gather ?? false;
  }

  /** Resolves to what was stored for the append's rows, in order, once the send that carried them is done. */
  add(append: Append): Promise<Stored[]> {
    const stored = new Promise<Stored[]>((resolve, reject) => this.#waiting.push({ append, resolve, reject }));
    if (!this.#sending) {
      this.#sending = true;
      if (this.#gather) setImmediate(() => void this.#sendWaiting());
      else void this.#sendWaiting();
    }
    return stored;
  }

  async #sendWaiting(): Promise<void> {
    try {
      while (this.#waiting.length > 0) {
        const group = takeGroup(this.#waiting);
        if (!(await this.#sendGroup(group)) && group.length > 1) {
          for (const one of group) await this.#sendGroup([one]);
        }
      }
    } finally {
      this.#sending = false;
    }
  }

  /** Whether the send succeeded; a failed send of one append rejects it. */
  async #sendGroup(group: readonly Waiting<Append, Stored>[]): Promise<boolean> {
    let stored: readonly Stored[];
    try {
      stored = await this.#send(group.map((waiting) => waiting.append));
    } catch (error) {
      if (group.length === 1) group[0]!.reject(error);
      return false;
    }
    let offset = 0;
    for (const waiting of group) {
      waiting.resolve(stored.slice(offset, offset + waiting.append.rows.length));
      offset += waiting.append.rows.length;
    }
    return true;
  }
}

interface Waiting<Append, Stored> {
  readonly append: Append;
  resolve(stored: Stored[]): void;
  reject(error: unknown): void;
}

/** Rows one send carries at most (an event row is 11 parameters; PostgreSQL takes 65 535); one append is never split. */
export const MAX_GROUPED_ROWS = 1_000;

/** The waiting appends the next send takes, oldest first, removed from `waiting`. */
function takeGroup<Append extends GroupedAppend<unknown>, Stored>(waiting: Waiting<Append, Stored>[]): Waiting<Append, Stored>[] {
  let count = 1;
  let rows = waiting[0]!.append.rows.length;
  while (count < waiting.length && rows + waiting[count]!.append.rows.length <= MAX_GROUPED_ROWS) rows += waiting[count++]!.append.rows.length;
  return waiting.splice(0, count);
}

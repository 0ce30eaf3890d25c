/**
 * A group commit of one process's appends (PostgreSQL): an append made while none is in flight is
 * sent at once; the appends made meanwhile wait and go together in the next send, each caller's
 * rows together and in the order of the calls. A send that fails fails every append it carried.
 */
export class GroupedAppends<Row, Stored> {
  readonly #send: (rows: readonly Row[]) => Promise<readonly Stored[]>;
  #waiting: Waiting<Row, Stored>[] = [];
  #sending = false;

  /** `send` stores the rows and returns what it stored for each, in order. */
  constructor(send: (rows: readonly Row[]) => Promise<readonly Stored[]>) {
    this.#send = send;
  }

  /** Resolves to what was stored for `rows`, in order, once the send that carried them is done. */
  add(rows: readonly Row[]): Promise<Stored[]> {
    const stored = new Promise<Stored[]>((resolve, reject) => this.#waiting.push({ rows, resolve, reject }));
    if (!this.#sending) void this.#sendWaiting();
    return stored;
  }

  async #sendWaiting(): Promise<void> {
    this.#sending = true;
    try {
      while (this.#waiting.length > 0) {
        const group = takeGroup(this.#waiting);
        try {
          const stored = await this.#send(group.flatMap((append) => append.rows));
          let offset = 0;
          for (const append of group) {
            append.resolve(stored.slice(offset, offset + append.rows.length));
            offset += append.rows.length;
          }
        } catch (error) {
          for (const append of group) append.reject(error);
        }
      }
    } finally {
      this.#sending = false;
    }
  }
}

interface Waiting<Row, Stored> {
  readonly rows: readonly Row[];
  resolve(stored: Stored[]): void;
  reject(error: unknown): void;
}

/** Rows one send carries at most (an event row is 10 parameters; PostgreSQL takes 65 535); one append is never split. */
export const MAX_GROUPED_ROWS = 1_000;

/** The waiting appends the next send takes, oldest first, removed from `waiting`. */
function takeGroup<Row, Stored>(waiting: Waiting<Row, Stored>[]): Waiting<Row, Stored>[] {
  let count = 1;
  let rows = waiting[0]!.rows.length;
  while (count < waiting.length && rows + waiting[count]!.rows.length <= MAX_GROUPED_ROWS) rows += waiting[count++]!.rows.length;
  return waiting.splice(0, count);
}

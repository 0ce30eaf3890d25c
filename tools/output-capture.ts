/**
 * Collects a stream's bytes keeping only its head and its tail, so a command that prints
 * gigabytes costs a bounded amount of memory; the middle is counted, not kept.
 */
export class OutputCapture {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(headBytes: number, tailBytes: number) {
    this.#headLimit = headBytes;
    this.#tailLimit = tailBytes;
  }

  push(chunk: Buffer | string): void {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.#total += bytes.length;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(bytes.length, this.#headLimit - this.#headBytes);
      this.#head.push(bytes.subarray(0, take));
      this.#headBytes += take;
      bytes = bytes.subarray(take);
    }
    if (bytes.length === 0) return;
    this.#tail.push(bytes);
    this.#tailBytes += bytes.length;
    while (this.#tailBytes > this.#tailLimit && this.#tail.length > 0) {
      const excess = this.#tailBytes - this.#tailLimit;
      const first = this.#tail[0]!;
      if (first.length <= excess) {
        this.#tail.shift();
        this.#tailBytes -= first.length;
      } else {
        this.#tail[0] = first.subarray(excess);
        this.#tailBytes -= excess;
      }
    }
  }

  /** Bytes received in all. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Bytes received but not kept. */
  get omittedBytes(): number {
    return this.#total - this.#headBytes - this.#tailBytes;
  }

  /** The kept text, with a marker where bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.#head).toString('utf8');
    const tail = Buffer.concat(this.#tail).toString('utf8');
    const omitted = this.omittedBytes;
    return omitted > 0 ? `${head}\n[… ${omitted} bytes omitted …]\n${tail}` : head + tail;
  }
}

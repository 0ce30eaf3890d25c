import { createRequire } from 'node:module';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { CONTROL_SLOTS, OP_COUNT, OP_ENCODE, OP_SWAP, SLOT_LENGTH, SLOT_OP, SLOT_RESULT, SLOT_STATE, STATE_BROKEN, STATE_DONE, STATE_FAILED, STATE_IDLE, STATE_LOADING, STATE_REQUEST, WORKER_SOURCE } from './tokenizer-thread-source.js';

/** What the engine asks of a tokenizer (o200k, text only: special tokens are text), several texts at a time. */
export interface Tokenizer {
  countMany(texts: readonly string[]): number[];
  encodeMany(texts: readonly string[]): number[][];
  /** `countMany` and `encodeMany` without blocking the caller's thread while the tokenizer works (where it has a thread of its own). */
  countManyAsync(texts: readonly string[]): Promise<number[]>;
  encodeManyAsync(texts: readonly string[]): Promise<number[][]>;
}

/**
 * gpt-tokenizer in a thread of its own, answering synchronously through shared memory.
 *
 * Its BPE tables take 0.4–0.6 s to load (parsing 200 000 strings, building a map of them): here on
 * the host's other core while the command sets up, their collections never pausing the caller. A
 * count costs a round trip of 20–50 µs on top of the tokenizing. The calls block: both threads wait
 * in `Atomics.wait`. A thread that does not answer within `timeoutMs` (it could not start, or its
 * load failed) is given up, and `count`/`encode` throw `TokenizerThreadError` from then on; the
 * caller falls back to loading the tables in process.
 */
export class TokenizerThread implements Tokenizer {
  readonly #worker: Worker;
  readonly #control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
  readonly #port: MessagePort;
  readonly #timeoutMs: number;
  #data: Buffer;
  #broken: Error | undefined;
  /** The asynchronous request the thread is answering, if any. */
  #inFlight: InFlight | undefined;
  /** Asynchronous requests waiting for the thread, oldest first. */
  readonly #queued: (() => void)[] = [];
  /** Asynchronous calls of each operation not sent yet: a call made meanwhile joins them (one round trip for all). */
  readonly #gathering = new Map<number, AsyncCall<unknown>[]>();
  #requests = 0;

  private constructor(options: TokenizerThreadOptions) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#data = sharedBuffer(options.initialBytes ?? INITIAL_DATA_BYTES);
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(options.workerSource ?? WORKER_SOURCE, {
      eval: true,
      workerData: { control: this.#control, data: this.#data.buffer, port: port2, tokenizer: options.modulePath ?? gptTokenizerPath() },
      transferList: [port2],
      // None of the process's flags: `--input-type=module` would make the thread's code a module,
      // and V8 flags (`--max-old-space-size`) are refused for a thread.
      execArgv: [],
      stdout: true,
      stderr: true,
    });
    // The thread must never keep the process alive, nor take it down.
    this.#worker.unref();
    this.#worker.on('error', (error) => (this.#broken ??= error));
    this.#worker.on('exit', (code) => (this.#broken ??= new TokenizerThreadError(`the tokenizer thread exited (${code})`)));
  }

  /** Starts the thread; the tables load there at once, while the caller goes on. */
  static start(options: TokenizerThreadOptions = {}): TokenizerThread {
    return new TokenizerThread(options);
  }

  /** Requests made to the thread so far (counts and encodings; calls that joined one made one). */
  get requests(): number {
    return this.#requests;
  }

  /** Whether the thread is still loading its tables (a call now would wait for them). */
  get loading(): boolean {
    return this.#broken === undefined && Atomics.load(this.#control, SLOT_STATE) === STATE_LOADING;
  }

  /** Whether the thread is loading its tables or answering a request (time a caller that will wait for it can use). */
  get working(): boolean {
    const state = Atomics.load(this.#control, SLOT_STATE);
    return this.#broken === undefined && (state === STATE_LOADING || state === STATE_REQUEST);
  }

  count(text: string): number {
    return this.countMany([text])[0]!;
  }

  encode(text: string): number[] {
    return this.encodeMany([text])[0]!;
  }

  /** The counts of several texts, in one round trip. */
  countMany(texts: readonly string[]): number[] {
    return this.#call(OP_COUNT, texts, () => Array.from(new Uint32Array(this.#data.buffer, 0, texts.length)));
  }

  /** The tokens of several texts, in one round trip. */
  encodeMany(texts: readonly string[]): number[][] {
    return this.#call(OP_ENCODE, texts, () => this.#readEncoded(texts.length));
  }

  /**
   * `encodeMany`, answered while the caller's thread goes on: the thread is woken and the answer
   * read when it has been written (`Atomics.waitAsync`). Requests are answered in the order they
   * were made, synchronous ones among them: a synchronous call first takes the answer of the
   * request in flight, then makes its own. Calls made while one waits to be sent join it: a wide
   * stage's nodes counting at once make one round trip, not one each behind the other.
   */
  encodeManyAsync(texts: readonly string[]): Promise<number[][]> {
    return this.#callAsync(OP_ENCODE, texts, (count) => this.#readEncoded(count));
  }

  /** `countMany`, answered while the caller's thread goes on (as `encodeManyAsync`). */
  countManyAsync(texts: readonly string[]): Promise<number[]> {
    return this.#callAsync(OP_COUNT, texts, (count) => Array.from(new Uint32Array(this.#data.buffer, 0, count)));
  }

  /** `gather`: the call may join others of its operation (a joined request the tokenizer refused is made again call by call, alone). */
  #callAsync<T>(op: number, texts: readonly string[], read: (count: number) => T[], gather = true): Promise<T[]> {
    return new Promise<T[]>((resolve, reject) => {
      // A pending Atomics.waitAsync does not keep Node's event loop alive: this timer does, until
      // the answer is read (else a process with nothing else to do exits before it, code 13).
      const hold = setTimeout(() => undefined, this.#timeoutMs + 1_000);
      const call: AsyncCall<T> = { texts, resolve: (value) => (clearTimeout(hold), resolve(value)), reject: (error) => (clearTimeout(hold), reject(error)) };
      const gathering = gather ? (this.#gathering.get(op) as AsyncCall<T>[] | undefined) : undefined;
      if (gathering !== undefined) {
        gathering.push(call);
        return;
      }
      const calls = [call];
      if (gather) this.#gathering.set(op, calls as AsyncCall<unknown>[]);
      const sent = (): string[] => {
        if (this.#gathering.get(op) === calls) this.#gathering.delete(op);
        return calls.flatMap((each) => each.texts);
      };
      const answered = (values: T[]): void => {
        let at = 0;
        for (const each of calls) each.resolve(values.slice(at, (at += each.texts.length)));
      };
      const failed = (error: Error): void => {
        if (calls.length === 1 || this.#broken !== undefined) for (const each of calls) each.reject(error);
        else for (const each of calls) this.#callAsync(op, each.texts, read, false).then(each.resolve, each.reject);
      };
      this.#startAsync(op, sent, read, answered, failed);
    });
  }

  /** `texts` is asked for when the request is made: calls that joined it until then are in it. */
  #startAsync<T>(op: number, textsOf: () => readonly string[], read: (count: number) => T, resolve: (value: T) => void, reject: (error: Error) => void): void {
    const issue = (): void => {
      const texts = textsOf();
      try {
        this.#post(op, texts);
      } catch (error) {
        reject(error as Error);
        this.#issueQueued();
        return;
      }
      const flight: InFlight = { settle: () => resolve(read(texts.length)), fail: reject };
      this.#inFlight = flight;
      const answered = waitAsync(this.#control, SLOT_STATE, STATE_REQUEST, this.#timeoutMs);
      const done = (outcome: string): void => {
        if (this.#inFlight !== flight) return;
        if (outcome === 'timed-out' && Atomics.load(this.#control, SLOT_STATE) === STATE_REQUEST) {
          this.#inFlight = undefined;
          flight.fail(this.#markBroken(new TokenizerThreadError(`the tokenizer thread did not answer within ${this.#timeoutMs} ms`)));
          this.#issueQueued();
          return;
        }
        this.#settleInFlight(true);
      };
      if (answered.async) void answered.value.then(done);
      else done(answered.value);
    };
    if (this.#inFlight === undefined && this.#queued.length === 0) issue();
    else this.#queued.push(issue);
  }

  #readEncoded(count: number): number[][] {
    const words = new Uint32Array(this.#data.buffer);
    const encoded: number[][] = [];
    let at = count;
    for (let index = 0; index < count; index += 1) {
      const length = words[index]!;
      encoded.push(Array.from(words.subarray(at, at + length)));
      at += length;
    }
    return encoded;
  }

  /** Reads the answer of the request in flight (waiting for it if `Atomics.waitAsync` has not yet told), then, if `next`, makes the next queued request. */
  #settleInFlight(next: boolean): void {
    const flight = this.#inFlight!;
    if (Atomics.load(this.#control, SLOT_STATE) === STATE_REQUEST) {
      try {
        this.#waitWhile(STATE_REQUEST, Date.now() + this.#timeoutMs);
      } catch (error) {
        this.#inFlight = undefined;
        flight.fail(error as Error);
        if (next) this.#issueQueued();
        return;
      }
    }
    this.#inFlight = undefined;
    try {
      this.#throwIfRefused();
      flight.settle();
    } catch (error) {
      flight.fail(error as Error);
    }
    if (next) this.#issueQueued();
  }

  #issueQueued(): void {
    if (this.#inFlight === undefined) this.#queued.shift()?.();
  }

  /** Ends the thread (the process does not wait for it in any case). */
  async stop(): Promise<void> {
    this.#broken ??= new TokenizerThreadError('the tokenizer thread was stopped');
    this.#inFlight?.fail(this.#broken);
    this.#inFlight = undefined;
    // Each queued request meets the stopped thread when it is made.
    while (this.#queued.length > 0) this.#queued.shift()!();
    this.#port.close();
    await this.#worker.terminate();
  }

  /**
   * Writes the request (a u32 byte length per text, then the texts' bytes, one after the other)
   * and waits for the answer: a u32 per text, the count or the number of tokens; an encoding's
   * tokens follow, text after text.
   */
  #call<T>(op: number, texts: readonly string[], read: () => T): T {
    if (this.#inFlight !== undefined) this.#settleInFlight(false);
    try {
      this.#post(op, texts);
      this.#waitWhile(STATE_REQUEST, Date.now() + this.#timeoutMs);
      this.#throwIfRefused();
      return read();
    } finally {
      // Read first: the next request is written over this one's answer.
      this.#issueQueued();
    }
  }

  /** Writes a request and wakes the thread for it; the slot must be free. */
  #post(op: number, texts: readonly string[]): void {
    if (this.#broken !== undefined) throw this.#broken;
    const lengths = texts.map((text) => Buffer.byteLength(text, 'utf8'));
    const bytes = lengths.reduce((total, length) => total + length, 0);
    // An encoding answers with up to one 4-byte token per byte of text.
    const needed = 4 * texts.length + (op === OP_ENCODE ? 4 * bytes : bytes);
    if (needed > this.#data.length) this.#grow(needed);
    const header = new Uint32Array(this.#data.buffer, 0, texts.length);
    let offset = 4 * texts.length;
    for (let index = 0; index < texts.length; index += 1) {
      header[index] = lengths[index]!;
      this.#data.write(texts[index]!, offset, 'utf8');
      offset += lengths[index]!;
    }
    this.#control[SLOT_OP] = op;
    this.#control[SLOT_LENGTH] = texts.length;
    this.#requests += 1;
    this.#wake();
  }

  /** The tokenizer itself refused a text: its error, as it would be thrown in process. */
  #throwIfRefused(): void {
    if (Atomics.load(this.#control, SLOT_STATE) === STATE_FAILED) throw new Error(this.#data.toString('utf8', 0, this.#control[SLOT_RESULT]));
  }

  /** A bigger shared buffer, handed to the thread before the request that needs it. */
  #grow(needed: number): void {
    let size = this.#data.length;
    while (size < needed) size *= 2;
    this.#data = sharedBuffer(size);
    this.#port.postMessage(this.#data.buffer);
    this.#control[SLOT_OP] = OP_SWAP;
    this.#wake();
    this.#waitWhile(STATE_REQUEST, Date.now() + this.#timeoutMs);
  }

  /** Marks the control slots' request as posted and wakes the thread; the first request also waits for the tables to load. */
  #wake(): void {
    const control = this.#control;
    const deadline = Date.now() + this.#timeoutMs;
    for (;;) {
      const state = Atomics.load(control, SLOT_STATE);
      if (state === STATE_LOADING) {
        this.#waitWhile(STATE_LOADING, deadline);
        continue;
      }
      if (state === STATE_BROKEN) this.#giveUp(new TokenizerThreadError(`the tokenizer thread could not load gpt-tokenizer: ${this.#data.toString('utf8', 0, control[SLOT_RESULT])}`));
      break;
    }
    Atomics.store(control, SLOT_STATE, STATE_REQUEST);
    Atomics.notify(control, SLOT_STATE);
  }

  #waitWhile(state: number, deadline: number): void {
    while (Atomics.load(this.#control, SLOT_STATE) === state) {
      const left = deadline - Date.now();
      if (left <= 0) this.#giveUp(new TokenizerThreadError(`the tokenizer thread did not answer within ${this.#timeoutMs} ms`));
      Atomics.wait(this.#control, SLOT_STATE, state, left);
    }
  }

  #giveUp(error: Error): never {
    throw this.#markBroken(error);
  }

  /** The thread is given up: every later call meets `error`. */
  #markBroken(error: Error): Error {
    this.#broken = error;
    void this.#worker.terminate();
    return error;
  }
}

export interface TokenizerThreadOptions {
  /** How long a call waits for the thread (the first one waits for the tables to load too); default 20 s. */
  readonly timeoutMs?: number;
  /** The shared buffer's first size in bytes; it doubles as texts need. */
  readonly initialBytes?: number;
  /** The module the thread requires for its tokenizer (tests point it elsewhere). */
  readonly modulePath?: string;
  /** The thread's code (tests only). */
  readonly workerSource?: string;
}

/** One asynchronous call: its texts, and its share of the answer of the request it went in. */
interface AsyncCall<T> {
  readonly texts: readonly string[];
  resolve(values: T[]): void;
  reject(error: Error): void;
}

/** An asynchronous request the thread is answering: what to do with its answer. */
interface InFlight {
  readonly settle: () => void;
  readonly fail: (error: Error) => void;
}

/** The tokenizer thread failed: it could not start or load its tokenizer, did not answer, or ended. */
export class TokenizerThreadError extends Error {
  override readonly name = 'TokenizerThreadError';
}

/** `Atomics.waitAsync`: in Node 20's V8, in TypeScript's library from ES2024 only (which also names what Node 20 lacks). */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number, timeoutMs: number): { async: false; value: string } | { async: true; value: Promise<string> } }).waitAsync;

function gptTokenizerPath(): string {
  return createRequire(import.meta.url).resolve('gpt-tokenizer');
}

/** A buffer both threads see, of whole u32 words. */
function sharedBuffer(bytes: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(Math.ceil(bytes / 4) * 4));
}

const DEFAULT_TIMEOUT_MS = 20_000;
const INITIAL_DATA_BYTES = 1 << 20;

import { secretSafeCut } from '../secret-stream-cut.js';

/** Least time between two `text/streamed` events of one response, by default. */
export const DEFAULT_TEXT_STREAM_INTERVAL_MS = 200;

export interface TextStreamOptions {
  /** Least time between two `text/streamed` events of one response. */
  readonly intervalMs?: number;
  /** Milliseconds clock; injectable so tests never wait. */
  readonly now?: () => number;
}

/**
 * Decides when a streaming response's text goes to the log and how much of it: at most one
 * `text/streamed` event per interval, each cut where no secret can be split between two events
 * (`secretSafeCut`: at whitespace, never inside a PEM private key or between a `Bearer`, `Basic` or
 * `password:` label and its value), so the store's redaction sees every secret whole. The first text only starts the clock, so a response that streams in
 * less than one interval writes no event at all; what is still held when the response completes
 * is never written, because its `assistant/message` carries the whole text.
 */
export class TextStreamCoalescer {
  readonly #intervalMs: number;
  readonly #now: () => number;
  #held = '';
  #since: number | undefined;

  constructor(options: TextStreamOptions = {}) {
    this.#intervalMs = options.intervalMs ?? DEFAULT_TEXT_STREAM_INTERVAL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Takes the next piece of streamed text; returns the text to write now, if any. */
  push(text: string): string | undefined {
    if (text === '') return undefined;
    this.#held += text;
    const now = this.#now();
    if (this.#since === undefined) {
      this.#since = now;
      if (this.#intervalMs > 0) return undefined;
    }
    if (now - this.#since < this.#intervalMs) return undefined;
    const cut = secretSafeCut(this.#held);
    if (cut <= 0) return undefined;
    const ready = this.#held.slice(0, cut);
    this.#held = this.#held.slice(cut);
    this.#since = now;
    return ready;
  }

  /** A retried call streams from its beginning again: drop what is held and start the clock anew. */
  restart(): void {
    this.#held = '';
    this.#since = undefined;
  }
}

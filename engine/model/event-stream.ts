import { createParser } from 'eventsource-parser';
import { abortReason } from './abort-reason.js';
import { modelErrorFromHttp } from './http-error.js';
import { ModelError, StreamInterruptedError } from './model-errors.js';

/** How long a stream may stay silent before we give up on it (DeepSeek streams have been seen to stall forever). */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** The `fetch` we need; tests and the CLI may pass their own (e.g. undici's with a dispatcher). */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

export interface EventStreamRequest {
  readonly provider: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly signal: AbortSignal;
  readonly idleTimeoutMs: number;
  readonly apiKeyEnv?: string;
  readonly fetch?: FetchFunction;
}

/** One server-sent event, or the whole body when a server answered with plain JSON instead of a stream. */
export type ResponseItem =
  | { readonly kind: 'event'; readonly event: string | undefined; readonly data: string }
  | { readonly kind: 'json'; readonly text: string };

/**
 * POSTs a JSON body and yields the response's server-sent events as they arrive, whatever byte
 * boundaries the network chose. Comments (`: keep-alive`) are skipped but keep the stream alive.
 * Non-2xx answers become typed `ModelError`s; a connection that cannot be opened is a retryable
 * `ModelError`; one that breaks or stays silent for `idleTimeoutMs` is a `StreamInterruptedError`.
 * A clean end of the body simply ends the iteration: the caller decides whether it was complete.
 * The caller's abort rethrows the signal's reason.
 */
export async function* openEventStream(request: EventStreamRequest): AsyncGenerator<ResponseItem> {
  const { signal } = request;
  if (signal.aborted) throw abortReason(signal);
  const controller = new AbortController();
  const abortFromCaller = (): void => controller.abort(signal.reason);
  signal.addEventListener('abort', abortFromCaller, { once: true });
  let idled = false;
  let timer: NodeJS.Timeout | undefined;
  const armIdleTimer = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idled = true;
      controller.abort();
    }, request.idleTimeoutMs);
  };
  const stopIdleTimer = (): void => clearTimeout(timer);
  const failure = (error: unknown, phase: 'connect' | 'read'): unknown => {
    if (signal.aborted) return abortReason(signal);
    if (error instanceof ModelError) return error;
    if (idled) {
      return new StreamInterruptedError(`${request.provider}: no data for ${Math.round(request.idleTimeoutMs / 1000)} s; gave up on the response`, {
        provider: request.provider, retryable: true, cause: error,
      });
    }
    if (phase === 'connect') {
      return new ModelError(`${request.provider}: cannot reach ${request.url}: ${describeNetworkError(error)}`, {
        provider: request.provider, retryable: true, cause: error,
      });
    }
    return new StreamInterruptedError(`${request.provider}: connection lost mid-response: ${describeNetworkError(error)}`, {
      provider: request.provider, retryable: true, cause: error,
    });
  };

  try {
    armIdleTimer();
    let response: Response;
    try {
      response = await (request.fetch ?? fetch)(request.url, {
        method: 'POST',
        headers: request.headers,
        body: JSON.stringify(request.body),
        signal: controller.signal,
      });
    } catch (error) {
      throw failure(error, 'connect');
    }
    if (!response.ok) {
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw failure(error, 'read');
      }
      throw modelErrorFromHttp({
        provider: request.provider, status: response.status, headers: response.headers, body: text,
        ...(request.apiKeyEnv === undefined ? {} : { apiKeyEnv: request.apiKeyEnv }),
      });
    }
    if ((response.headers.get('content-type') ?? '').includes('application/json')) {
      try {
        yield { kind: 'json', text: await response.text() };
      } catch (error) {
        throw failure(error, 'read');
      }
      return;
    }
    if (response.body === null) return;
    const pending: ResponseItem[] = [];
    const parser = createParser({ onEvent: (event) => pending.push({ kind: 'event', event: event.event, data: event.data }) });
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw failure(error, 'read');
      }
      if (chunk.done) break;
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      stopIdleTimer(); // the consumer's time is not the server's silence
      while (pending.length > 0) yield pending.shift() as ResponseItem;
      armIdleTimer();
    }
    parser.feed(`${decoder.decode()}\n\n`); // a last event without its blank line still counts
    stopIdleTimer();
    while (pending.length > 0) yield pending.shift() as ResponseItem;
  } finally {
    stopIdleTimer();
    signal.removeEventListener('abort', abortFromCaller);
    controller.abort(); // releases the connection when the consumer stops early
  }
}

function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code === undefined ? cause.message : `${code} ${cause.message}`.trim();
  }
  return String(cause);
}

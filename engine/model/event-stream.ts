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
  const idle = idleWatch(request.idleTimeoutMs, controller);
  const failure = (error: unknown, phase: Phase): unknown => streamFailure(request, error, phase, idle.idled);
  try {
    idle.arm();
    const response = await connect(request, controller.signal, failure);
    if ((response.headers.get('content-type') ?? '').includes('application/json')) {
      try {
        yield { kind: 'json', text: await response.text() };
      } catch (error) {
        throw failure(error, 'read');
      }
      return;
    }
    if (response.body === null) return;
    yield* serverSentEvents(response.body, idle, failure);
  } finally {
    idle.stop();
    signal.removeEventListener('abort', abortFromCaller);
    controller.abort(); // releases the connection when the consumer stops early
  }
}

type Phase = 'connect' | 'read';

interface IdleWatch {
  /** The stream stayed silent for the whole timeout (and the request was aborted for it). */
  readonly idled: boolean;
  arm(): void;
  stop(): void;
}

/** Aborts the request when the server stays silent for `timeoutMs` after `arm`. */
function idleWatch(timeoutMs: number, controller: AbortController): IdleWatch {
  let timer: NodeJS.Timeout | undefined;
  const watch = {
    idled: false,
    arm(): void {
      clearTimeout(timer);
      timer = setTimeout(() => {
        watch.idled = true;
        controller.abort();
      }, timeoutMs);
    },
    stop(): void {
      clearTimeout(timer);
    },
  };
  return watch;
}

/** What a failure means to the caller: its own abort, a silent server, a connection never made or lost. */
function streamFailure(request: EventStreamRequest, error: unknown, phase: Phase, idled: boolean): unknown {
  const { signal, provider } = request;
  if (signal.aborted) return abortReason(signal);
  if (error instanceof ModelError) return error;
  if (idled) {
    return new StreamInterruptedError(`${provider}: no data for ${Math.round(request.idleTimeoutMs / 1000)} s; gave up on the response`, {
      provider, retryable: true, cause: error,
    });
  }
  if (phase === 'connect') {
    return new ModelError(`${provider}: cannot reach ${request.url}: ${describeNetworkError(error)}`, {
      provider, retryable: true, cause: error,
    });
  }
  return new StreamInterruptedError(`${provider}: connection lost mid-response: ${describeNetworkError(error)}`, {
    provider, retryable: true, cause: error,
  });
}

/** POSTs the request; an answer that is not 2xx becomes a typed `ModelError`. */
async function connect(request: EventStreamRequest, signal: AbortSignal, failure: (error: unknown, phase: Phase) => unknown): Promise<Response> {
  let response: Response;
  try {
    response = await (request.fetch ?? fetch)(request.url, {
      method: 'POST',
      headers: request.headers,
      body: JSON.stringify(request.body),
      signal,
    });
  } catch (error) {
    throw failure(error, 'connect');
  }
  if (response.ok) return response;
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

/** The body's server-sent events, whatever byte boundaries the network chose. */
async function* serverSentEvents(body: ReadableStream<Uint8Array>, idle: IdleWatch, failure: (error: unknown, phase: Phase) => unknown): AsyncGenerator<ResponseItem> {
  const pending: ResponseItem[] = [];
  const parser = createParser({ onEvent: (event) => pending.push({ kind: 'event', event: event.event, data: event.data }) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw failure(error, 'read');
    }
    if (chunk.done) break;
    parser.feed(decoder.decode(chunk.value, { stream: true }));
    idle.stop(); // the consumer's time is not the server's silence
    while (pending.length > 0) yield pending.shift() as ResponseItem;
    idle.arm();
  }
  parser.feed(`${decoder.decode()}\n\n`); // a last event without its blank line still counts
  idle.stop();
  while (pending.length > 0) yield pending.shift() as ResponseItem;
}

function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return code === undefined ? cause.message : `${code} ${cause.message}`.trim();
  }
  return String(cause);
}

import { createHash } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type IdGenerator, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { LogSpan } from './log-spans.js';
import type { TraceExportConfig } from './trace-config.js';

/**
 * One export to the collector may take this long. Under the OTLP exporter's first retry backoff
 * (about a second), so a refused connection fails at once instead of being retried.
 */
export const EXPORT_TIMEOUT_MS = 750;
/** At the end, spans still queued are waited for this long at most: a dead collector never holds the process. */
export const SHUTDOWN_WAIT_MS = 1_000;
/** The batch processor sends what it holds this often while a run goes. */
const BATCH_DELAY_MS = 1_000;

/** Where derived spans go: an OpenTelemetry tracer provider with its exporter. */
export interface TraceSink {
  emit(spans: readonly LogSpan[]): void;
  /** Flushes and shuts down, waiting at most `SHUTDOWN_WAIT_MS` (or the whole export, with `wait: 'all'`). */
  close(options?: { readonly wait?: 'bounded' | 'all' }): Promise<void>;
}

/** The trace id of a run: the same for every process that builds its spans, workers included. */
export function traceIdOf(runId: string): string {
  return createHash('sha256').update(`dagent trace\u0000${runId}`).digest('hex').slice(0, 32);
}

/** A span's id, from the run and the span's key in the log. */
export function spanIdOf(runId: string, key: string): string {
  return createHash('sha256').update(`dagent span\u0000${runId}\u0000${key}`).digest('hex').slice(0, 16);
}

/** Hands the tracer the ids of the span it is about to start, so spans built twice carry the same ids. */
class LogIdGenerator implements IdGenerator {
  next = { traceId: '', spanId: '' };
  generateTraceId(): string {
    return this.next.traceId;
  }
  generateSpanId(): string {
    return this.next.spanId;
  }
}

/**
 * `dagent trace` sends one export and waits for it: a collector across the internet (a TLS
 * handshake, a busy ingest) is given the OTLP exporter's own default, not a live run's 750 ms.
 */
export const ONE_SHOT_EXPORT_TIMEOUT_MS = 10_000;

/** The OTLP/HTTP exporter of the configured protocol (protobuf or JSON); each export may take `timeoutMs` (a live run's 750 ms by default). */
export async function createOtlpExporter(config: TraceExportConfig, timeoutMs = EXPORT_TIMEOUT_MS): Promise<SpanExporter> {
  const options = { url: config.url, timeoutMillis: timeoutMs };
  if (config.protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(options);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(options);
}

/**
 * A sink exporting a run's spans through the OpenTelemetry SDK: `service.name` dagent unless
 * `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` say otherwise; batched (in the background,
 * short timeouts) for a live run, one by one for a file.
 */
export function createTraceSink(runId: string, target: SpanExporter, options: { readonly batch: boolean }): TraceSink {
  const exporter = withHealth(target);
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': 'dagent' })).merge(detectResources({ detectors: [envDetector] }));
  const processor = options.batch
    ? new BatchSpanProcessor(exporter, { scheduledDelayMillis: BATCH_DELAY_MS, exportTimeoutMillis: EXPORT_TIMEOUT_MS })
    : new SimpleSpanProcessor(exporter);
  const ids = new LogIdGenerator();
  const provider = new BasicTracerProvider({ resource, idGenerator: ids, spanProcessors: [processor] });
  const tracer = provider.getTracer('dagent');
  const traceId = traceIdOf(runId);
  return {
    emit(spans) {
      for (const span of spans) {
        const parent = span.parentKey === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: spanIdOf(runId, span.parentKey), traceFlags: TraceFlags.SAMPLED, isRemote: false });
        ids.next = { traceId, spanId: spanIdOf(runId, span.key) };
        const started = tracer.startSpan(span.name, { kind: span.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL, startTime: Date.parse(span.startTime), attributes: span.attributes }, parent);
        if (span.error !== null) started.setStatus({ code: SpanStatusCode.ERROR, message: span.error });
        started.end(Date.parse(span.endTime ?? span.startTime));
      }
    },
    async close(closeOptions = {}) {
      const shutdown = provider.shutdown().catch(() => undefined);
      if (closeOptions.wait === 'all') return shutdown;
      // A collector that already failed an export is not waited for at all.
      if (exporter.failed) return;
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_WAIT_MS);
        timer.unref();
      });
      await Promise.race([shutdown, bound]);
      clearTimeout(timer);
    },
  };
}

/** The spans as one OTLP/JSON export request (`ExportTraceServiceRequest`), as a collector would receive it. */
export async function otlpJsonOf(runId: string, spans: readonly LogSpan[]): Promise<string> {
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(await readableSpansOf(runId, spans)));
}

/** Sends a finished run's spans in one export (the exporter's timeout: `timeoutMs`); resolves to null when the collector took them, else why not. */
export async function exportSpans(runId: string, exporter: SpanExporter, spans: readonly LogSpan[], timeoutMs: number): Promise<string | null> {
  const readable = await readableSpansOf(runId, spans);
  const outcome = await new Promise<string | null>((resolve) => {
    exporter.export(readable, (result) => resolve(result.code === ExportResultCode.SUCCESS ? null : exportFailure(result.error, timeoutMs)));
  });
  await exporter.shutdown().catch(() => undefined);
  return outcome;
}

/** Why an export failed, in words for the user: the HTTP status when the SDK carries one, what its retries and timeout amount to. */
function exportFailure(error: (Error & { code?: unknown }) | undefined, timeoutMs: number): string {
  if (error === undefined) return 'export failed';
  if (error.message === 'Request timed out') return `it did not answer within ${timeoutMs / 1000} s`;
  if (error.message === 'Export failed with retryable status') return `it answered busy (HTTP 429, 502, 503 or 504) to every try for ${timeoutMs / 1000} s`;
  return typeof error.code === 'number' && !error.message.includes(String(error.code)) ? `HTTP ${error.code}: ${error.message}` : error.message;
}

async function readableSpansOf(runId: string, spans: readonly LogSpan[]): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const sink = createTraceSink(runId, memory, { batch: false });
  sink.emit(spans);
  const finished = memory.getFinishedSpans();
  await sink.close({ wait: 'all' });
  return finished;
}

/** The exporter, remembering whether an export failed (a dead or unreachable collector). */
function withHealth(exporter: SpanExporter): SpanExporter & { readonly failed: boolean } {
  const health = {
    failed: false,
    export: (spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void => {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) health.failed = true;
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
  return health;
}

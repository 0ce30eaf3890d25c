import { errorMessage, followRun, readEvents, type SessionEvent } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { collectorAnswers } from './collector-probe.js';
import { spansFromLog } from './log-spans.js';
import { traceExportConfig } from './trace-config.js';
import type { TraceSink } from './otel-export.js';

/** Spans that ended are handed to the exporter at most this often while a run goes. */
const LIVE_EMIT_MS = 500;

export interface RunTracing {
  /** Reads the log to its end, exports what is left and shuts the exporter down within its bound. */
  finish(): Promise<void>;
}

/**
 * Live OpenTelemetry traces of a run this process executes, when the OTEL_* variables configure an
 * endpoint (else undefined, and nothing is loaded). It follows the run's log, the same log workers
 * append to, and exports each span once the log has ended it; span and trace ids are hashed from
 * the run and the log, so no trace context needs to travel to workers. A dead collector costs the
 * run nothing: one that does not accept a connection as the run starts is not used (the run is
 * told so on stderr), exports go in the background with short timeouts, and the end waits a
 * bounded time for the last spans.
 */
export async function startRunTracing(context: CliContext, runId: string): Promise<RunTracing | undefined> {
  let config;
  try {
    config = traceExportConfig(context.io.env);
  } catch (error) {
    writeLine(context.io.stderr, `dagent: traces are off: ${errorMessage(error)}`);
    return undefined;
  }
  if (config === null) return undefined;
  // While the run starts: is the collector there? Only then is the SDK loaded (~150 ms).
  const sinkReady: Promise<TraceSink | undefined> = collectorAnswers(config.url)
    .then(async (answers) => {
      if (!answers) {
        writeLine(context.io.stderr, `dagent: the OTLP collector at ${config.url} does not answer; the run goes on untraced (\`dagent trace ${runId}\` sends its trace later)`);
        return undefined;
      }
      const otel = await import('./otel-export.js');
      return otel.createTraceSink(runId, await otel.createOtlpExporter(config), { batch: true });
    })
    .catch((error: unknown) => {
      writeLine(context.io.stderr, `dagent: traces are off: ${errorMessage(error)}`);
      return undefined;
    });
  const includeContent = context.config.telemetry?.includeContent === true;
  const store = await context.store();
  const events: SessionEvent[] = await readEvents(store.db, runId);
  const emitted = new Set<string>();
  // A resumed run: spans its log ended before this process began were the earlier process's to
  // export (it ended them, so it sent them); sending them again would give the collector their ids twice.
  const exportedBefore = events.some((event) => event.type === 'run/started') ? (events.at(-1)?.seq ?? 0) : 0;
  let timer: NodeJS.Timeout | undefined;
  const emitEnded = async (): Promise<TraceSink | undefined> => {
    timer = undefined;
    const sink = await sinkReady;
    const ended = spansFromLog(runId, events, { includeContent }).filter((span) => span.endSeq !== null && span.endSeq > exportedBefore && !emitted.has(span.key));
    for (const span of ended) emitted.add(span.key);
    sink?.emit(ended);
    return sink;
  };
  const stopFollowing = new AbortController();
  const follower = await followRun(store, runId, {
    afterSeq: events.at(-1)?.seq ?? 0,
    signal: stopFollowing.signal,
    onEvents: (batch) => {
      events.push(...batch);
      if (timer === undefined) timer = setTimeout(() => void emitEnded(), LIVE_EMIT_MS).unref();
    },
  });
  return {
    async finish() {
      try {
        await follower.catchUp();
        await follower.stop();
      } finally {
        stopFollowing.abort();
        clearTimeout(timer);
        await (await emitEnded())?.close();
      }
    },
  };
}

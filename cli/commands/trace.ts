import { ConfigError, getRun, readEvents } from '../../engine/read-face.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { collectorAnswers } from '../telemetry/collector-probe.js';
import { spansFromLog } from '../telemetry/log-spans.js';
import { traceExportConfig } from '../telemetry/trace-config.js';
import { writeUserFile } from '../context/user-files.js';

/** A collector across the internet may take a TLS-less connect this long; one on this machine answers in a millisecond. */
const COLLECTOR_CONNECT_TIMEOUT_MS = 3_000;

export const traceCommand = defineCommand<{ run: string; out?: string }>({
  examples: [
    ['OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 $0 trace r-7f3a', "send a finished run's trace to a collector"],
    ['$0 trace r-7f3a --out trace.json', 'write it as an OTLP/JSON export request instead'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' })
      .option('out', { type: 'string', requiresArg: true, describe: 'write the spans to this file as OTLP/JSON instead of sending them' }),
  async run(context, args) {
    const { db } = await context.readStore();
    const run = await getRun(db, args.run);
    const config = args.out === undefined ? traceExportConfig(context.io.env) : null;
    if (args.out === undefined && config === null) {
      throw new ConfigError('no OTLP endpoint: set OTEL_EXPORTER_OTLP_ENDPOINT (e.g. http://localhost:4318), or write the trace to a file with --out trace.json');
    }
    const spans = spansFromLog(run.id, await readEvents(db, run.id), { includeContent: context.config.telemetry?.includeContent === true });
    // A span the log never ended (the run is still going, or its process died) ends at the log's last event.
    const lastTime = spans.reduce((latest, span) => (span.endTime !== null && span.endTime > latest ? span.endTime : span.startTime > latest ? span.startTime : latest), '');
    const finished = spans.map((span) => (span.endTime !== null ? span : { ...span, endTime: lastTime, attributes: { ...span.attributes, 'dagent.span.unfinished': true } }));
    const otel = await import('../telemetry/otel-export.js');
    if (args.out !== undefined) {
      writeUserFile(context.io.cwd, args.out, `${await otel.otlpJsonOf(run.id, finished)}\n`, 'the trace');
      writeLine(context.io.stdout, `${finished.length} spans of run ${run.id} (trace ${otel.traceIdOf(run.id)}) written to ${args.out}`);
      return 0;
    }
    const nextStep = `check that it runs and listens there, or write the trace to a file: dagent trace ${run.id} --out trace.json`;
    // A collector that takes no connection is told at once, not after the exporter's retries.
    if (!(await collectorAnswers(config!.url, COLLECTOR_CONNECT_TIMEOUT_MS))) {
      writeLine(context.io.stderr, `dagent: the collector at ${config!.url} does not accept a connection; ${nextStep}`);
      return 1;
    }
    const exporter = await otel.createOtlpExporter(config!, otel.ONE_SHOT_EXPORT_TIMEOUT_MS);
    const result = await otel.exportSpans(run.id, exporter, finished, otel.ONE_SHOT_EXPORT_TIMEOUT_MS);
    if (result !== null) {
      writeLine(context.io.stderr, `dagent: the collector at ${config!.url} did not take the trace: ${result}; ${nextStep}`);
      return 1;
    }
    writeLine(context.io.stdout, `${finished.length} spans of run ${run.id} sent to ${config!.url} (trace ${otel.traceIdOf(run.id)})`);
    return 0;
  },
});

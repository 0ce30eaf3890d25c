import { resolve } from 'node:path';
import { NothingToDiffError, currentPlan, diffRun, errorMessage, getRun, readEvents, visibleJson, type RunRecord, type SessionEvent } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { dagentCommand } from '../context/dagent-command.js';
import { fileStat } from '../render/index.js';
import { buildRunReport, renderReportHtml, renderReportMarkdown, reproduceCommands, type ReportDiff, type RunReport } from '../report/index.js';
import { writeUserFile } from '../context/user-files.js';

type ReportFormat = 'markdown' | 'html' | 'json';
const REPORT_FORMATS: readonly ReportFormat[] = ['markdown', 'html', 'json'];

export const reportCommand = defineCommand<{ run: string; format: ReportFormat; out?: string }>({
  examples: [
    ['$0 report r-7f3a > comment.md', 'a pull-request comment: plan, nodes, replans, lint, changes, how to reproduce'],
    ['$0 report r-7f3a --format html --out run.html', 'one self-contained page with the DAG drawn'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' })
      .option('format', { type: 'string', choices: REPORT_FORMATS, default: 'markdown' as ReportFormat, describe: 'markdown (fits a GitHub comment), html (one file) or json' })
      .option('out', { type: 'string', requiresArg: true, describe: 'write the report to this file instead of stdout' }),
  async run(context, args) {
    const { db } = await context.readStore();
    const found = await getRun(db, args.run);
    const events = await readEvents(db, found.id);
    const run = withModelItRanOn(found, events);
    const stored = run.planVersion === null ? null : await currentPlan(db, run.id);
    const report = buildRunReport({
      run,
      events,
      plan: stored === null ? null : { version: stored.version, plan: stored.plan },
      diff: await diffStatOf(context, run),
      reproduce: reproduceCommands(dagentCommand(process.argv[1], context.io.env), run),
    });
    const text = renderReport(report, context.json ? 'json' : args.format);
    if (args.out === undefined) writeLine(context.io.stdout, text);
    else writeUserFile(context.io.cwd, args.out, `${text}\n`, 'the report');
    return 0;
  },
});

function renderReport(report: RunReport, format: ReportFormat): string {
  switch (format) {
    case 'json':
      return visibleJson(JSON.stringify(report, null, 2));
    case 'html':
      return renderReportHtml(report);
    case 'markdown':
      return renderReportMarkdown(report);
  }
}

/** Lines added and removed per file the run changed; a workspace that is gone leaves the reason instead. */
async function diffStatOf(context: CliContext, run: RunRecord): Promise<ReportDiff> {
  const { db } = await context.readStore();
  const workspace = context.workspaceGiven ? context.workspace : run.workspace;
  try {
    const files = (await diffRun(db, run.id, workspace)).files.map(fileStat);
    return {
      available: true,
      files: files.map((file) => ({ path: file.path, change: file.change, added: file.added, removed: file.removed, nodeIds: file.nodeIds })),
      added: files.reduce((sum, file) => sum + file.added, 0),
      removed: files.reduce((sum, file) => sum + file.removed, 0),
    };
  } catch (error) {
    if (error instanceof NothingToDiffError) return { available: true, files: [], added: 0, removed: 0 };
    return { available: false, reason: errorMessage(error) };
  }
}

/**
 * The run with the model its nodes ran on, when none was recorded as it was planned (`dagent plan`
 * without `-m`, then `run -m`): the report names it and its reproduce commands pass it, from the
 * first request a node of the plan made (the planner's and the summarizer's are another role's).
 */
function withModelItRanOn(run: RunRecord, events: readonly SessionEvent[]): RunRecord {
  if (typeof run.config.model === 'string') return run;
  const request = events.find((event): event is SessionEvent<'request/header'> => event.type === 'request/header' && event.nodeId !== null && event.nodeId !== 'planner' && event.payload.agent.startsWith('node:'));
  if (request === undefined) return run;
  // A scripted model's file as the run named it, relative to where it ran: the workspace, as a run in it is run.
  const model = request.payload.provider === 'scripted' ? resolve(run.workspace, request.payload.model) : request.payload.model;
  return { ...run, config: { ...run.config, model: `${request.payload.provider}:${model}` } };
}


import { FileSnapshots, environmentModelFailure, executeReactRun, recallMemories, runLog, visibleJson, visibleText } from '../../engine/index.js';
import { toolSet } from '../../tools/index.js';
import { writeLine } from '../context/cli-io.js';
import { integerAtLeast } from '../context/cli-args.js';
import { defineCommand } from '../context/command.js';
import { recordedModelId } from '../plans/recorded-models.js';
import { createApprover, createMemoryStore, createNodeCompactor, createTools, projectMemorySections } from '../runtime/compose-runtime.js';
import { formatTokens, formatUsd, plural } from '../render/index.js';
import { chooseModel, modelIdFor } from '../runtime/models.js';
import { checkTaskImages, createImageSupport } from '../runtime/task-images.js';
import { countingDenials, deniedCallsLine } from '../running/no-terminal-denials.js';
import { reactTranscript } from '../running/react-transcript.js';
import { startRunTracing, type RunTracing } from '../telemetry/run-tracing.js';

export const reactCommand = defineCommand<{ task: string[]; 'max-steps'?: number }>({
  examples: [
    ['$0 react \'why does npm test fail?\' -m deepseek:deepseek-chat', 'one agent answers with the tools, no plan'],
  ],
  builder: (yargs) =>
    yargs.positional('task', { type: 'string', array: true, demandOption: true, describe: 'what to do' }).option('max-steps', { requiresArg: true, coerce: integerAtLeast('--max-steps', 1), describe: 'most model calls (default 40)' }),
  async run(context, args) {
    const task = args.task.join(' ').trim();
    const modelId = modelIdFor(context, 'node');
    const chosen = chooseModel(context, modelId);
    const images = createImageSupport(context);
    await checkTaskImages(task, chosen.provider, images);
    const { db } = await context.store();
    const transcript = reactTranscript(context.io.stdout, context.json);
    const limits = { ...(args['max-steps'] === undefined ? {} : { maxSteps: args['max-steps'] }), ...(context.config.tokenBudget === undefined ? {} : { tokenBudget: context.config.tokenBudget }) };
    const tools = await createTools(context);
    const denials = countingDenials(tools);
    const memory = await createMemoryStore(context);
    let tracing: RunTracing | undefined;
    let unfollow: (() => void) | undefined;
    const { runId, status, outcome, filesChanged, unkept } = await executeReactRun({
      db,
      task,
      workspace: context.workspace,
      provider: chosen.provider,
      model: chosen.provider.model,
      tools: denials.tools,
      allowedTools: toolSet(tools, 'all', { planned: false }),
      approver: createApprover(context),
      sections: await projectMemorySections(context),
      contexts: [recallMemories(memory, { query: task })],
      compactor: createNodeCompactor(context, chosen.provider, chosen.provider.model, memory, { price: chosen.price }),
      price: chosen.price,
      limits,
      signal: context.io.interrupt,
      onPart: transcript.onPart,
      images,
      // One node over the whole workspace: a watch would cost more than the two looks it saves, and
      // storing what git ignores ahead would copy node_modules (FileSnapshotsOptions.snapshotIgnored);
      // without git, the workspace is read only if a command, hook or MCP tool runs (deferScan).
      files: (id) => new FileSnapshots({ db, runId: id, workspace: context.workspace, watch: false, snapshotIgnored: false, deferScan: true }),
      config: { model: recordedModelId(context, modelId) },
      onStart: async (id) => {
        if (!context.json) context.io.stderr.write(`run ${id} · ${chosen.modelId}\n`);
        unfollow = runLog(db, id).onAppend(transcript.onEvents);
        tracing = await startRunTracing(context, id);
      },
      ...(context.config.toolBatchTimeoutMs === undefined ? {} : { toolBatchTimeoutMs: context.config.toolBatchTimeoutMs }),
    }).finally(async () => {
      unfollow?.();
      await tracing?.finish();
    });
    const failed = status !== 'succeeded';
    const environment = outcome.reason === 'error' && outcome.detail !== undefined ? environmentModelFailure(outcome.detail) : undefined;
    if (environment !== undefined && !context.json) {
      if (transcript.midLine()) writeLine(context.io.stdout);
      writeLine(context.io.stderr, `dagent: ${environment}`);
      return 2;
    }
    if (context.json) {
      const error = unkept === undefined ? {} : { error: unkept.error };
      writeLine(context.io.stdout, visibleJson(JSON.stringify({ runId, status, reason: outcome.reason, answer: outcome.answer, detail: outcome.detail, ...error, filesChanged, denied: denials.count(), steps: outcome.steps, usage: outcome.usage, costUsd: outcome.costUsd })));
    } else {
      if (transcript.midLine()) writeLine(context.io.stdout);
      if (status === 'cancelled') writeLine(context.io.stderr, cancelledLine(runId, outcome.detail, filesChanged));
      else if (outcome.reason !== 'done') writeLine(context.io.stderr, `stopped: ${outcome.reason.replace('_', ' ')}${outcome.detail ? ` (${visibleText(outcome.detail)})` : ''}`);
      // What went wrong comes before the error's first ': ' (`unkeptPromise`); the denial line below says what lets it through.
      else if (unkept !== undefined) writeLine(context.io.stderr, `failed: ${visibleText(unkept.error.split(': ', 1)[0]!)}`);
      if (denials.count() > 0) writeLine(context.io.stderr, deniedCallsLine(denials.count()));
      const cacheShare = outcome.usage.input === 0 ? 0 : Math.round((outcome.usage.cacheHit / outcome.usage.input) * 100);
      writeLine(
        context.io.stderr,
        `run ${runId} · ${plural(outcome.steps, 'step')} · ${formatTokens(outcome.usage.input)} in (${cacheShare}% cache hit) · ${formatTokens(outcome.usage.output)} out · ${formatUsd(outcome.costUsd)}`,
      );
    }
    if (status === 'cancelled') return EXIT_CANCELLED;
    return !failed ? 0 : environment === undefined ? 1 : 2;
  },
});

/** A react run stopped by Ctrl-C, SIGTERM or `dagent cancel` exits as a cancelled `dagent run` does: the job ran and did not succeed. */
const EXIT_CANCELLED = 1;

/** Why the run was cancelled, and where its change so far is: a react run has no plan to resume. */
function cancelledLine(runId: string, why: string | undefined, filesChanged: readonly string[]): string {
  const line = `cancelled: ${visibleText(why ?? 'interrupted')}`;
  if (filesChanged.length === 0) return `${line}; nothing was changed`;
  return `${line}; it had changed ${plural(filesChanged.length, 'file')}: see them with dagent diff ${runId}, undo them with dagent revert ${runId}`;
}

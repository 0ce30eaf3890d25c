import { environmentModelFailure, executeReactRun, recallMemories, visibleJson, visibleText, type StreamPart } from '../../engine/index.js';
import { toolSet } from '../../tools/index.js';
import { writeLine } from '../context/cli-io.js';
import { integerAtLeast } from '../context/cli-args.js';
import { defineCommand } from '../context/command.js';
import { createApprover, createMemoryStore, createNodeCompactor, createTools, projectMemorySections } from '../runtime/compose-runtime.js';
import { formatTokens, formatUsd } from '../render/index.js';
import { chooseModel, modelIdFor } from '../runtime/models.js';
import { checkTaskImages, createImageSupport } from '../runtime/task-images.js';
import { startRunTracing, type RunTracing } from '../telemetry/run-tracing.js';

export const reactCommand = defineCommand<{ task: string[]; 'max-steps'?: number }>({
  examples: [
    ['$0 react \'why does npm test fail?\' -m deepseek:deepseek-chat', 'one agent answers with the tools, no plan'],
  ],
  builder: (yargs) =>
    yargs.positional('task', { type: 'string', array: true, demandOption: true, describe: 'what to do' }).option('max-steps', { requiresArg: true, coerce: integerAtLeast('--max-steps', 1), describe: 'most model calls (default 40)' }),
  async run(context, args) {
    const task = args.task.join(' ').trim();
    const chosen = chooseModel(context, modelIdFor(context, 'node'));
    const images = createImageSupport(context);
    await checkTaskImages(task, chosen.provider, images);
    const { db } = await context.store();
    const transcript = streamedTranscript(context.io.stdout, context.json);
    const limits = { ...(args['max-steps'] === undefined ? {} : { maxSteps: args['max-steps'] }), ...(context.config.tokenBudget === undefined ? {} : { tokenBudget: context.config.tokenBudget }) };
    const tools = await createTools(context);
    const memory = await createMemoryStore(context);
    let tracing: RunTracing | undefined;
    const { runId, outcome } = await executeReactRun({
      db,
      task,
      workspace: context.workspace,
      provider: chosen.provider,
      model: chosen.provider.model,
      tools,
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
      onStart: async (id) => {
        if (!context.json) context.io.stderr.write(`run ${id} · ${chosen.modelId}\n`);
        tracing = await startRunTracing(context, id);
      },
      ...(context.config.toolBatchTimeoutMs === undefined ? {} : { toolBatchTimeoutMs: context.config.toolBatchTimeoutMs }),
    }).finally(() => tracing?.finish());
    const succeeded = outcome.reason === 'done';
    const environment = outcome.reason === 'error' && outcome.detail !== undefined ? environmentModelFailure(outcome.detail) : undefined;
    if (environment !== undefined && !context.json) {
      if (transcript.midLine()) writeLine(context.io.stdout);
      writeLine(context.io.stderr, `dagent: ${environment}`);
      return 2;
    }
    if (context.json) {
      writeLine(context.io.stdout, visibleJson(JSON.stringify({ runId, reason: outcome.reason, answer: outcome.answer, detail: outcome.detail, steps: outcome.steps, usage: outcome.usage, costUsd: outcome.costUsd })));
    } else {
      if (transcript.midLine()) writeLine(context.io.stdout);
      if (!succeeded) writeLine(context.io.stderr, `stopped: ${outcome.reason.replace('_', ' ')}${outcome.detail ? ` (${visibleText(outcome.detail)})` : ''}`);
      const cacheShare = outcome.usage.input === 0 ? 0 : Math.round((outcome.usage.cacheHit / outcome.usage.input) * 100);
      writeLine(
        context.io.stderr,
        `run ${runId} · ${outcome.steps} steps · ${formatTokens(outcome.usage.input)} in (${cacheShare}% cache hit) · ${formatTokens(outcome.usage.output)} out · ${formatUsd(outcome.costUsd)}`,
      );
    }
    return succeeded ? 0 : environment === undefined ? 1 : 2;
  },
});

/**
 * The agent's turns as they stream: its text, one line per tool call, a blank line between turns.
 * `midLine` says whether the last text left the cursor mid-line. Nothing is written under `--json`.
 */
function streamedTranscript(out: NodeJS.WritableStream, json: boolean): { onPart: (part: StreamPart) => void; midLine: () => boolean } {
  // Where the transcript stands: mid-line after streamed text, and whether a turn has begun.
  let midLine = false;
  let turnHasOutput = false;
  const onPart = (part: StreamPart): void => {
    if (json) return;
    switch (part.type) {
      case 'text': {
        // The model's text is shown, never obeyed: an escape sequence in it cannot redraw the terminal.
        const text = visibleText(part.text, { multiline: true });
        out.write(text);
        if (text.length > 0) midLine = !text.endsWith('\n');
        turnHasOutput = true;
        return;
      }
      case 'tool-call':
        if (midLine) out.write('\n');
        midLine = false;
        writeLine(out, `  → ${visibleText(part.name)} ${oneLine(visibleJson(JSON.stringify(part.args) ?? ''), 160)}`);
        turnHasOutput = true;
        return;
      case 'finish':
        // One model response per turn: a rule between them, so each step reads on its own.
        if (!turnHasOutput) return;
        if (midLine) out.write('\n');
        midLine = false;
        turnHasOutput = false;
        if (part.reason === 'tool-calls') writeLine(out);
        return;
      default:
        return;
    }
  };
  return { onPart, midLine: () => midLine };
}

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

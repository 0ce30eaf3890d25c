import { EventLog, Session, SystemPrompt, createRun, endRun, runAgent, type AgentOutcome, type StreamPart } from '../../engine/index.js';
import { DEFAULT_TOOL_NAMES } from '../../tools/index.js';
import { writeLine } from '../cli-io.js';
import { defineCommand } from '../command.js';
import { createApprover, createTools } from '../compose-runtime.js';
import { formatTokens, formatUsd } from '../format/numbers.js';
import { chooseModel, modelIdFor } from '../models.js';

/** The static system prompt of a plain ReAct agent. */
export const REACT_SECTIONS = [
  {
    id: 'identity',
    order: 0,
    text: 'You are a coding agent working in a repository. You have tools to list, read, search and change files and to run commands in the workspace.',
  },
  {
    id: 'rules',
    order: 10,
    text: [
      'Rules:',
      '- Look before you change: read a file before you edit it; prefer edit_file with an exact, unique old_string.',
      '- Paths are relative to the workspace root; never try to leave it.',
      '- A tool error is information: read it and adapt. If the user rejects an operation, take another approach.',
      '- When the task is done, answer without calling tools: say what you did and which files changed.',
    ].join('\n'),
  },
] as const;

export const reactCommand = defineCommand<{ task: string[]; 'max-steps'?: number }>({
  command: 'react <task..>',
  describe: 'one ReAct agent, no plan: for short tasks',
  builder: (yargs) =>
    yargs.positional('task', { type: 'string', array: true, demandOption: true, describe: 'what to do' }).option('max-steps', { type: 'number', describe: 'most model calls (default 40)' }),
  async run(context, args) {
    const task = args.task.join(' ').trim();
    const chosen = chooseModel(context, modelIdFor(context, 'node'));
    const { db } = await context.store();
    const run = await createRun(db, { task, workspace: context.workspace, mode: 'react', status: 'running' });
    const log = new EventLog(db, run.id);
    await log.append({ type: 'run/started', payload: { pid: process.pid } });
    const session = await Session.open(log, 'react');
    const tools = await createTools(context);
    const prompt = new SystemPrompt().addTools('all', () => tools.specs([...DEFAULT_TOOL_NAMES]));
    for (const section of REACT_SECTIONS) prompt.addSection(section);
    if (!context.json) context.io.stderr.write(`run ${run.id} · ${chosen.modelId}\n`);
    let streamed = false;
    const onPart = (part: StreamPart): void => {
      if (context.json || part.type !== 'text') return;
      context.io.stdout.write(part.text);
      streamed = true;
    };
    let outcome: AgentOutcome;
    try {
      outcome = await runAgent({
        agent: 'react',
        session,
        prompt,
        provider: chosen.provider,
        model: chosen.provider.model,
        tools,
        toolContext: { runId: run.id, nodeId: 'react', workspace: context.workspace, approver: createApprover(context), allowedTools: [...DEFAULT_TOOL_NAMES] },
        instruction: task,
        price: chosen.price,
        signal: context.io.interrupt,
        ...(context.config.toolBatchTimeoutMs === undefined ? {} : { toolBatchTimeoutMs: context.config.toolBatchTimeoutMs }),
        onPart,
        limits: { ...(args['max-steps'] === undefined ? {} : { maxSteps: args['max-steps'] }), ...(context.config.tokenBudget === undefined ? {} : { tokenBudget: context.config.tokenBudget }) },
      });
    } finally {
      session.close();
    }
    const succeeded = outcome.reason === 'done';
    await endRun(db, run.id, succeeded ? { status: 'succeeded', result: outcome.answer } : { status: 'failed', error: `${outcome.reason}: ${outcome.detail ?? ''}` }, log);
    if (context.json) {
      writeLine(context.io.stdout, JSON.stringify({ runId: run.id, reason: outcome.reason, answer: outcome.answer, detail: outcome.detail, steps: outcome.steps, usage: outcome.usage, costUsd: outcome.costUsd }));
    } else {
      if (streamed) writeLine(context.io.stdout);
      if (!succeeded) writeLine(context.io.stderr, `stopped: ${outcome.reason.replace('_', ' ')}${outcome.detail ? ` (${outcome.detail})` : ''}`);
      const cacheShare = outcome.usage.input === 0 ? 0 : Math.round((outcome.usage.cacheHit / outcome.usage.input) * 100);
      writeLine(
        context.io.stderr,
        `run ${run.id} · ${outcome.steps} steps · ${formatTokens(outcome.usage.input)} in (${cacheShare}% cache hit) · ${formatTokens(outcome.usage.output)} out · ${formatUsd(outcome.costUsd)}`,
      );
    }
    return succeeded ? 0 : 1;
  },
});


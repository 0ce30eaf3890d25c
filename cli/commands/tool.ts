import { ConfigError, NO_TERMINAL_DENIAL, Session, createRun, endRun, runLog, visibleJson, visibleText } from '../../engine/index.js';
import { toolResultToJson } from '../../tools/index.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { createApprover, createTools } from '../runtime/compose-runtime.js';

export const toolCommand = defineCommand<{ name: string; args?: string }>({
  examples: [
    ['$0 tool read_file \'{"path":"src/a.ts"}\'', 'run one tool as a model would'],
  ],
  builder: (yargs) => yargs.positional('name', { type: 'string', demandOption: true }).positional('args', { type: 'string', describe: 'JSON arguments (default {})' }),
  async run(context, args) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(args.args ?? '{}');
    } catch (error) {
      throw new ConfigError(`tool arguments must be a JSON object: ${(error as Error).message}`);
    }
    const tools = await createTools(context);
    const known = tools.specs().map((spec) => spec.name);
    if (!known.includes(args.name)) throw new ConfigError(`unknown tool "${args.name}"; tools: ${known.join(', ')}`);
    const { db } = await context.store();
    const run = await createRun(db, { task: `tool ${args.name} ${args.args ?? '{}'}`, workspace: context.workspace, mode: 'tool', status: 'running' });
    const log = runLog(db, run.id);
    const session = await Session.open(log, 'tool');
    const call = { id: 'call-1', name: args.name, args: parsed };
    const result = await tools.execute(call, {
      runId: run.id,
      nodeId: 'tool',
      workspace: context.workspace,
      signal: context.io.interrupt,
      position: { turn: 1, step: 1 },
      session,
      approver: createApprover(context),
    });
    await session.append({ type: 'tool/result', turn: 1, step: 1, payload: { toolCallId: call.id, name: call.name, content: result.content, isError: result.isError, meta: { ...result.meta, args: parsed } } });
    session.close();
    await endRun(db, run.id, result.isError ? { status: 'failed', error: result.content.split('\n', 1)[0] ?? '' } : { status: 'succeeded' }, log);
    if (context.json) writeLine(context.io.stdout, visibleJson(JSON.stringify(toolResultToJson(result))));
    else if (typeof result.meta.humanNextStep === 'string') writeLine(context.io.stderr, `dagent: ${visibleText(deniedWithoutTerminal(result.meta.humanNextStep))}`);
    else writeLine(result.isError ? context.io.stderr : context.io.stdout, visibleText(result.content, { multiline: true }));
    return result.isError ? 1 : 0;
  },
});

/** A call `dagent tool` could not ask about: the plan and the dashboard do not apply here, the approval flag does. */
function deniedWithoutTerminal(humanNextStep: string): string {
  const call = humanNextStep.split(` ${NO_TERMINAL_DENIAL}`, 1)[0];
  return `${call} ${NO_TERMINAL_DENIAL}; run it from a terminal to be asked, or pass --approval auto to allow it (the sandbox still confines commands)`;
}

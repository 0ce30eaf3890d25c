import { ConfigError, Session, createRun, endRun, runLog, visibleJson, visibleText } from '../../engine/index.js';
import { isMcpToolName, toolResultToJson } from '../../tools/index.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { createApprover, createTools } from '../runtime/compose-runtime.js';
import { deniedWithoutTerminal } from '../running/no-terminal-denials.js';

export const toolCommand = defineCommand<{ name: string; args?: string }>({
  examples: [
    ['$0 tool read_file \'{"path":"src/a.ts"}\'', 'run one tool as a model would'],
  ],
  builder: (yargs) => yargs.positional('name', { type: 'string', demandOption: true }).positional('args', { type: 'string', describe: 'JSON arguments (default {})' }),
  async run(context, args) {
    const parsed = toolArguments(args.args);
    // The MCP servers start only for one of their tools (a server that does not answer would hold up every built-in call).
    const tools = await createTools(context, { mcp: isMcpToolName(args.name) });
    const tool = tools.get(args.name);
    const known = tools.specs().filter((spec) => standsAlone(tools.get(spec.name))).map((spec) => spec.name);
    if (tool === undefined) throw new ConfigError(`unknown tool "${args.name}"; tools: ${known.join(', ')}${isMcpToolName(args.name) || context.config.mcpServers === undefined ? '' : ' (and the MCP servers\' tools, as <server>__<tool>: `dagent mcp list`)'}`);
    if (!standsAlone(tool)) throw new ConfigError(`${args.name} works only inside a run: ${tool.teamOnly === true ? 'the lead agent of `dagent team` calls it' : 'a node of a planned run calls it'}, and \`dagent tool\` runs a tool on its own`);
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
    // Arguments the tool could not take are the caller's bad input, as a plan the engine cannot take.
    return result.meta.outcome === 'invalid-args' ? 2 : result.isError ? 1 : 0;
  },
});

/** The JSON arguments of a call: an object (`{}` when none are given); anything else is bad input. */
function toolArguments(text: string | undefined): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text ?? '{}');
  } catch (error) {
    throw new ConfigError(`tool arguments are not valid JSON: ${(error as Error).message}; give an object, e.g. '{"path":"src/a.ts"}'`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    throw new ConfigError(`tool arguments must be a JSON object, e.g. '{"path":"src/a.ts"}', not ${got}`);
  }
  return parsed as Record<string, unknown>;
}

/** Whether a tool does its work on its own: the plan's and the team lead's tools speak to a run controller. */
function standsAlone(tool: { readonly planOnly?: boolean; readonly teamOnly?: boolean } | undefined): boolean {
  return tool !== undefined && tool.planOnly !== true && tool.teamOnly !== true;
}


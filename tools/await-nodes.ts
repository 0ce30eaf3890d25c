import { z } from 'zod';
import { awaitNodes, delegatedBy, type NodeEnding } from '../engine/index.js';
import { defineTool, loadToolDescription } from './define-tool.js';
import { ToolError } from './tool-errors/index.js';

/** The longest one call waits: below the step's tool budget, so a long member is awaited over several calls. */
export const MAX_AWAIT_MS = 60_000;

const awaitNodesArgs = z.strictObject({
  ids: z.array(z.string().min(1)).min(1).max(50).describe('ids of the nodes to wait for'),
  timeout_ms: z.number().int().positive().max(MAX_AWAIT_MS).optional().describe(`how long to wait at most (default and most ${MAX_AWAIT_MS})`),
});

/** `await_nodes` (team mode): waits on the run log until the named nodes ended; their answers or errors. */
export const awaitNodesTool = defineTool({
  name: 'await_nodes',
  description: loadToolDescription(import.meta.url, 'await-nodes.md'),
  args: awaitNodesArgs,
  risk: 'read',
  planOnly: true,
  teamOnly: true,
  timeoutMs: MAX_AWAIT_MS + 5_000,
  summarize: (args) => `await ${args.ids.join(', ')}`,
  async execute(args, context) {
    if (context.nodeId === null) throw new ToolError('await_nodes is for the lead of a team run (`dagent team`)');
    const ids = [...new Set(args.ids)];
    const delegated = await delegatedBy(context.session.log);
    const unknown = ids.filter((id) => !delegated.has(id));
    if (unknown.length > 0) throw new ToolError(`not delegated in this run: ${unknown.join(', ')} (a refused delegation adds no node); await only the ids delegate answered with`);
    const wait = AbortSignal.any([context.signal, AbortSignal.timeout(args.timeout_ms ?? MAX_AWAIT_MS)]);
    let endings: readonly NodeEnding[];
    try {
      endings = await awaitNodes(context.session.log, ids, wait);
    } catch (error) {
      if (context.signal.aborted) throw error;
      return { content: `still running after ${Math.round((args.timeout_ms ?? MAX_AWAIT_MS) / 1000)} s: ${ids.join(', ')}; call await_nodes again to keep waiting`, meta: { pending: ids } };
    }
    const failed = endings.filter((ending) => ending.status !== 'succeeded').length;
    return { content: endings.map((ending) => `## ${ending.nodeId}: ${ending.status}\n${ending.text}`).join('\n\n'), meta: { nodes: ids, failed } };
  },
});

import { NODE_WORKSPACE_FOLD_TYPES, RequestNotFoundError, assertRunHasNode, foldNodeWorkspace, getRun, nodeWorkspaceLine, readEvents, reconstructRequest, visibleJson, visibleText } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import { integerAtLeast } from '../context/cli-args.js';
import { defineCommand } from '../context/command.js';
import { renderRequestText } from '../render/index.js';

export const inspectCommand = defineCommand<{ run: string; node: string; step?: number }>({
  examples: [
    ['$0 inspect r-7f3a --node edit-a', 'the last request edit-a\'s model received'],
    ['$0 inspect r-7f3a --node edit-a --step 2', 'the request of its second step'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id' })
      .option('node', { type: 'string', requiresArg: true, demandOption: true, describe: 'node id ("react" for a react run, "planner" for the planner)' })
      .option('step', { requiresArg: true, coerce: integerAtLeast('--step', 1), describe: 'agent step (default: the last request)' }),
  async run(context, args) {
    const { db } = await context.readStore();
    const run = await getRun(db, args.run);
    // A node in its own workspace (isolation: worktree): where it stands, and its commit on the run branch.
    const workspace = foldNodeWorkspace(await readEvents(db, run.id, { nodeId: args.node, types: NODE_WORKSPACE_FOLD_TYPES }));
    let request;
    try {
      request = await reconstructRequest(db, run.id, args.node, args.step);
    } catch (error) {
      // A node id the run never had is a typo, not a node without requests.
      if (error instanceof RequestNotFoundError) await assertRunHasNode(db, run.id, args.node);
      // A command node calls no model: its workspace and commit are what there is to see.
      if (!(error instanceof RequestNotFoundError) || args.step !== undefined || workspace === null) throw error;
      const line = `run ${run.id} · node ${args.node} · no model request (the node ran without a model)\nworkspace: ${nodeWorkspaceLine(workspace)}`;
      writeLine(context.io.stdout, context.json ? visibleJson(JSON.stringify({ runId: run.id, nodeId: args.node, workspace })) : visibleText(line, { multiline: true }));
      return 0;
    }
    writeLine(context.io.stdout, context.json ? visibleJson(JSON.stringify(workspace === null ? request : { ...request, workspace })) : renderRequestText(request, workspace === null ? undefined : nodeWorkspaceLine(workspace)));
    return 0;
  },
});

import { getRun, reconstructRequest, visibleJson } from '../../engine/index.js';
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
      .option('node', { type: 'string', demandOption: true, describe: 'node id ("react" for a react run, "planner" for the planner)' })
      .option('step', { requiresArg: true, coerce: integerAtLeast('--step', 1), describe: 'agent step (default: the last request)' }),
  async run(context, args) {
    const { db } = await context.readStore();
    const run = await getRun(db, args.run);
    const request = await reconstructRequest(db, run.id, args.node, args.step);
    writeLine(context.io.stdout, context.json ? visibleJson(JSON.stringify(request)) : renderRequestText(request));
    return 0;
  },
});

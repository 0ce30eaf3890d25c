import { pauseNode, tellNode, visibleText } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';

interface SayArgs {
  run: string;
  text?: string[];
  node: string;
}

export const sayCommand = defineCommand<SayArgs>({
  examples: [
    ["$0 say r-7f3a --node edit-a 'keep the old name as a deprecated alias'", 'the node reads it as a user message at its next step'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' })
      .positional('text', { type: 'string', array: true, describe: 'what to tell the node' })
      .option('node', { type: 'string', requiresArg: true, demandOption: true, describe: 'the running node to tell' }),
  async run(context, args) {
    const { db } = await context.store();
    const receipt = await tellNode(db, args.run, args.node, (args.text ?? []).join(' ').trim(), `pid ${process.pid}`);
    if (context.json) writeLine(context.io.stdout, JSON.stringify(receipt));
    else writeLine(context.io.stdout, `told ${visibleText(receipt.nodeId)} of run ${receipt.runId}: it reads your message at its next step (\`dagent log ${receipt.runId} --node ${visibleText(receipt.nodeId)}\` shows it)`);
    return 0;
  },
});

export const pauseCommand = defineCommand<{ run: string; node: string }>({
  examples: [
    ['$0 pause r-7f3a --node edit-a', 'stop edit-a at its next step; the other nodes go on'],
  ],
  builder: (yargs) =>
    yargs
      .positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' })
      .option('node', { type: 'string', requiresArg: true, demandOption: true, describe: 'the running node to pause' }),
  async run(context, args) {
    const { db } = await context.store();
    const receipt = await pauseNode(db, args.run, args.node, `pid ${process.pid}`);
    if (context.json) writeLine(context.io.stdout, JSON.stringify(receipt));
    else writeLine(context.io.stdout, `pausing ${visibleText(receipt.nodeId)} of run ${receipt.runId} at its next step; \`dagent resume ${receipt.runId} --node ${visibleText(receipt.nodeId)}\` lets it go on`);
    return 0;
  },
});

import { deadRunOwner, getRun, pauseNode, tellNode, visibleText } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
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
    await warnIfNobodyRunsIt(context, receipt.runId, 'the node reads your message once `dagent resume RUN` takes the run up');
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
    await warnIfNobodyRunsIt(context, receipt.runId, 'nothing runs the node to pause it; `dagent resume RUN` takes the run up, its nodes going on');
    return 0;
  },
});

/** A word or a pause for a run whose process is gone waits for the process that takes the run up: said on stderr, with how. */
async function warnIfNobodyRunsIt(context: CliContext, runId: string, meaning: string): Promise<void> {
  const { db } = await context.store();
  const gone = await deadRunOwner(db, await getRun(db, runId));
  if (gone !== undefined) writeLine(context.io.stderr, `dagent: warning: run ${runId}'s process (pid ${gone.pid}) is gone: ${meaning.replaceAll('RUN', runId)}`);
}


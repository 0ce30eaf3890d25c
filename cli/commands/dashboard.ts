import { DagentError, getRun } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { showLiveDashboard } from '../running/live-dashboard.js';

export const dashboardCommand = defineCommand<{ run: string }>({
  examples: [
    ['$0 dashboard r-7f3a', 'watch a run started in another terminal; q detaches'],
  ],
  builder: (yargs) => yargs.positional('run', { type: 'string', demandOption: true, describe: 'run id (a unique prefix is enough)' }),
  async run(context, args) {
    const { db } = await context.store();
    // An unknown run is named as one, terminal or not.
    const run = await getRun(db, args.run);
    if (context.io.stdout.isTTY !== true || context.io.stdin.isTTY !== true) {
      throw new DagentError(`the dashboard needs a terminal; without one, \`dagent status ${run.id}\` or \`dagent log ${run.id} --follow\` show the run`);
    }
    const live = await showLiveDashboard(context, run.id, { attached: false });
    const interrupted = new Promise<void>((resolve) => context.io.interrupt.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([live.dashboard.detached, interrupted]);
    const view = live.dashboard.state().view;
    await live.stop();
    writeLine(context.io.stdout, `detached from run ${run.id} (${view.status.replace('_', ' ')}); \`dagent dashboard ${run.id}\` attaches again`);
    return 0;
  },
});

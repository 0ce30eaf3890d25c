import { ConfigError } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import type { DaemonStatus } from '../runtime/language-daemon/daemon-protocol.js';
import { serveLanguageService } from '../runtime/language-daemon/serve-language-service.js';
import { DEFAULT_LANGUAGE_SERVICE_IDLE_MINUTES, daemonStatus, stopDaemon } from '../runtime/language-daemon/warm-language-service.js';

export const languageServiceCommand = defineCommand<{ stop?: boolean; serve?: boolean; tsconfig?: string; idleMinutes?: number }>({
  examples: [
    ['$0 language-service', 'whether the warm TypeScript service of this workspace runs: its pid, queries, idle timeout'],
    ['$0 language-service --stop', 'stop it now (the next member query starts it again)'],
  ],
  builder: (yargs) =>
    yargs
      .option('stop', { type: 'boolean', describe: 'stop the warm service of this workspace' })
      .option('serve', { type: 'boolean', describe: 'be the warm service (scan and the plan lint start it in the background; it exits when idle)' })
      .option('idle-minutes', { type: 'number', requiresArg: true, describe: `with --serve: exit after this many minutes without a query (default: languageServiceIdleMinutes, else ${DEFAULT_LANGUAGE_SERVICE_IDLE_MINUTES})` })
      .option('tsconfig', { type: 'string', requiresArg: true, describe: 'the tsconfig the service answers for (default tsconfig.json, then jsconfig.json)' })
      .conflicts('stop', 'serve')
      .epilogue(
        'Member references (`scan --importers FILE#Class.member`, the plan lint of a member change) need the TypeScript compiler with the projects loaded: a few seconds to tens of seconds on a large repository. The first such query starts a warm service for the workspace in the background; later commands ask it, and it answers against the files as they are on disk at each question. It exits after languageServiceIdleMinutes without a query (default 10; 0: never start one, each command loads TypeScript itself), when the workspace is deleted, or on --stop.',
      ),
  async run(context, args) {
    const key = { workspace: context.workspace, tsconfig: args.tsconfig };
    if (args.serve === true) {
      const minutes = args.idleMinutes ?? context.config.languageServiceIdleMinutes ?? DEFAULT_LANGUAGE_SERVICE_IDLE_MINUTES;
      if (!(minutes > 0)) throw new ConfigError(`--idle-minutes must be more than 0 (got ${minutes})`);
      await serveLanguageService({ ...key, idleMs: minutes * 60_000 });
      return 0;
    }
    const status = args.stop === true ? await stopDaemon(key) : await daemonStatus(key);
    if (context.json) writeLine(context.io.stdout, JSON.stringify({ running: status !== undefined && args.stop !== true, ...(status === undefined ? {} : { service: status }) }));
    else writeLine(context.io.stdout, describe(status, args.stop === true, context.workspace));
    return 0;
  },
});

function describe(status: DaemonStatus | undefined, stopped: boolean, workspace: string): string {
  if (status === undefined) return `no warm language service runs for ${workspace}${stopped ? ' (nothing to stop)' : ''}`;
  const since = `started ${status.startedAt}, ${status.queries} ${status.queries === 1 ? 'query' : 'queries'}`;
  if (stopped) return `stopped the warm language service of ${workspace} (pid ${status.pid}, ${since})`;
  return `warm language service of ${workspace}: pid ${status.pid}, ${since}; exits after ${Math.round(status.idleMs / 60_000 * 10) / 10} min without a query`;
}

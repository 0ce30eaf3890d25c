import yargs, { type Argv } from 'yargs';
import { DagentError, describeSqliteError, errorMessage } from '../engine/index.js';
import { CliContext, type GlobalOptions } from './cli-context.js';
import { processIo, writeLine, type CliIo } from './cli-io.js';
import type { CliCommand } from './command.js';
import { COMMANDS } from './commands/index.js';

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let exitCode = 0;
  let context: CliContext | undefined;
  const parser = yargs([...argv])
    .scriptName('dagent')
    .usage('$0 [options] <command>\n\nPlan-and-execute coding agents: plan a task as a DAG, review it, run it in parallel.')
    .option('workspace', { alias: 'w', type: 'string', describe: 'the repository to work in (default: current directory)' })
    .option('db', { type: 'string', describe: 'database: a SQLite file or postgres:// URL (default: <workspace>/.dagent/dagent.db)' })
    .option('model', { alias: 'm', type: 'string', describe: 'PROVIDER:MODEL, e.g. deepseek:deepseek-chat, scripted:FILE' })
    .option('base-url', { type: 'string', describe: 'base URL of an OpenAI-compatible server' })
    .option('approval', { type: 'string', choices: ['auto', 'suggest', 'never'] as const, describe: 'approval policy for risky tools' })
    .option('json', { type: 'boolean', describe: 'machine-readable output' })
    .strict()
    .demandCommand(1, 'name a command: dagent --help lists them')
    .recommendCommands()
    .help()
    .alias('help', 'h')
    .version()
    .wrap(Math.min(110, io.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((message, error) => {
      throw error ?? new DagentError(message);
    });

  for (const command of COMMANDS) {
    parser.command({
      command: command.command,
      describe: command.describe,
      builder: (y: Argv) => (command as CliCommand).builder(y as Argv<GlobalOptions>),
      handler: async (args) => {
        context = new CliContext(io, args as GlobalOptions);
        exitCode = await (command as CliCommand).run(context, args as GlobalOptions & Record<string, unknown>);
      },
    });
  }

  const output: string[] = [];
  try {
    await parser.parseAsync([...argv], {}, (_error, _argv, text) => {
      if (text) output.push(text);
    });
    if (output.length > 0) writeLine(io.stdout, output.join('\n'));
    return exitCode;
  } catch (error) {
    if (output.length > 0 && !(error instanceof DagentError)) writeLine(io.stderr, output.join('\n'));
    return reportError(io, error, context?.dbUrl);
  } finally {
    await context?.close().catch(() => undefined);
  }
}

function reportError(io: CliIo, error: unknown, dbUrl: string | undefined): number {
  if (isSqliteError(error)) error = describeSqliteError(error, dbUrl ?? 'the database');
  if (error instanceof DagentError) {
    writeLine(io.stderr, `dagent: ${error.message}`);
    return error.exitCode;
  }
  writeLine(io.stderr, `dagent: ${errorMessage(error)}`);
  if (io.env.DAGENT_DEBUG && error instanceof Error && error.stack) writeLine(io.stderr, error.stack);
  return isUsageError(error) ? 2 : 1;
}

function isSqliteError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

function isUsageError(error: unknown): boolean {
  return error instanceof Error && error.name === 'YError';
}

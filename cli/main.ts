import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import { loadTokenizer } from '../engine/index.js';
import type { GlobalOptions } from './context/cli-context.js';
import type { CliContext } from './context/cli-context.js';
import { processIo, writeLine, type CliIo } from './context/cli-io.js';
import type { CliCommand } from './context/command.js';
import { COMMANDS, commandName, type CommandEntry } from './commands/index.js';
import { usageMessage } from './usage-messages.js';

/** Global options that take a value: the word after them is not the command. */
const VALUED_GLOBALS = new Set(['-w', '--workspace', '--db', '-m', '--model', '--base-url', '--approval']);

const EXAMPLES: readonly (readonly [string, string])[] = [
  ['$0 demo', 'the offline demo: plan, review and run a refactor with a scripted model'],
  ['$0 plan "rename Invoice.total() to grandTotal()" -m deepseek:deepseek-chat', 'plan a task; prints the run id and the plan'],
  ['$0 approve r-7f3a && $0 run r-7f3a', 'approve the plan, then run it (a unique prefix of the run id is enough)'],
  ['$0 status r-7f3a', "the run's nodes, tokens and cost"],
  ['$0 diff r-7f3a | less', 'what the run changed'],
];

/** A wrong flag or argument: one line, exit 2. */
class UsageError extends Error {
  readonly exitCode = 2;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function main(commandLine: readonly string[], io: CliIo = processIo()): Promise<number> {
  const argv = withDashValues(commandLine);
  let exitCode = 0;
  let context: CliContext | undefined;
  const chosen = COMMANDS.find((entry) => commandName(entry) === commandWord(argv));
  // A command that will count tokens starts loading the tokenizer's tables now, in a thread of
  // their own: some 0.3 s of CPU on another core, beside the command's own loading and set-up.
  if (chosen?.countsTokens?.(argv) === true && !argv.includes('--help') && !argv.includes('-h')) loadTokenizer();
  // Only the command that runs is loaded: `--help`, `status` or `log` never load the planners or the tools.
  const loaded = chosen === undefined ? undefined : await chosen.load();
  const setContext = (created: CliContext): void => {
    context = created;
  };
  const setExitCode = (code: number): void => {
    exitCode = code;
  };
  const output: string[] = [];
  try {
    const plain = chosen === undefined ? undefined : plainReadArguments(commandName(chosen), argv);
    if (chosen !== undefined && plain !== undefined) {
      await commandModule(chosen, loaded, io, setContext, setExitCode).handler(plain);
      return exitCode;
    }
    const parser = await commandLineParser(argv, io, chosen, loaded, setContext, setExitCode);
    await parser.parseAsync([...argv], {}, (_error, _argv, text) => {
      if (text) output.push(text);
    });
    if (output.length > 0) writeLine(io.stdout, output.join('\n'));
    return exitCode;
  } catch (error) {
    if (output.length > 0 && !hasExitCode(error)) writeLine(io.stderr, output.join('\n'));
    return await reportError(io, error, context?.dbUrl);
  } finally {
    await context?.close().catch(() => undefined);
  }
}

/**
 * `--node -` (a run's own events, not a node's) as `--node=-`: yargs takes a lone `-` for a
 * positional (standard input), never for an option's value, and refused the word.
 */
function withDashValues(argv: readonly string[]): readonly string[] {
  const words: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    // After `--` every word is an argument as given.
    if (argv[index] === '--') return [...words, ...argv.slice(index)];
    if (argv[index] === '--node' && argv[index + 1] === '-') {
      words.push('--node=-');
      index += 1;
    } else {
      words.push(argv[index]!);
    }
  }
  return words;
}

/** yargs with every global option, and the commands it needs to know (see below). */
async function commandLineParser(
  argv: readonly string[],
  io: CliIo,
  chosen: CommandEntry | undefined,
  loaded: CliCommand<never> | undefined,
  setContext: (context: CliContext) => void,
  setExitCode: (code: number) => void,
): Promise<Argv> {
  const { default: yargs } = await import('yargs');
  const parser = yargs([...argv])
    .scriptName('dagent')
    .usage('$0 [options] <command>\n\nPlan-and-execute coding agents: plan a task as a DAG, review it, run it in parallel.')
    .option('workspace', { alias: 'w', type: 'string', describe: 'the repository to work in (default: the git repository around the current folder, else the current folder)' })
    .option('db', { type: 'string', describe: 'database: a SQLite file or postgres:// URL (default: <workspace>/.dagent/dagent.db)' })
    .option('model', { alias: 'm', type: 'string', describe: 'PROVIDER:MODEL, e.g. deepseek:deepseek-chat, scripted:FILE' })
    .option('base-url', { type: 'string', describe: 'base URL of an OpenAI-compatible server' })
    .option('approval', { type: 'string', choices: ['auto', 'suggest', 'never'] as const, describe: 'approval policy for risky tools' })
    .option('json', { type: 'boolean', describe: 'machine-readable output' })
    .option('sandbox', { type: 'boolean', describe: 'run commands in the OS sandbox (the default); --no-sandbox runs them unconfined' })
    .strict()
    .strictCommands()
    .demandCommand(1, 'name a command: dagent --help lists them')
    .recommendCommands()
    .help()
    .alias('help', 'h')
    .version()
    .wrap(Math.min(110, io.stdout.columns ?? 100))
    .exitProcess(false)
    .fail((message, error) => {
      // yargs' own complaints (some come as its YError) are usage errors; a command's errors pass as they are.
      if (error !== undefined && error !== null && error.name !== 'YError') throw error;
      throw new UsageError(usageMessage(message ?? error?.message ?? '', argv, commandWord(argv), chosen));
    });
  for (const [command, description] of EXAMPLES) parser.example(command, description);
  parser.epilogue('Settings: flags, then DAGENT_* environment variables, then ~/.config/dagent/config.json; a workspace\'s own .dagent/config.json may set models, URLs and approval policies only after `dagent trust`.');

  // A known command is the only one yargs needs: it renders that command's help (even when it is
  // not asked for) and parses its options. The top-level help and a mistyped name need them all.
  for (const entry of chosen === undefined ? COMMANDS : [chosen]) parser.command(commandModule(entry, entry === chosen ? loaded : undefined, io, setContext, setExitCode));
  return parser as unknown as Argv;
}

/** The read-only commands that a plain command line may run without yargs, and whether their run id is required. */
const PLAIN_READ_COMMANDS: ReadonlyMap<string, { readonly runRequired: boolean; readonly defaults: Readonly<Record<string, unknown>> }> = new Map([
  ['status', { runRequired: false, defaults: {} }],
  ['log', { runRequired: true, defaults: {} }],
  ['show', { runRequired: true, defaults: { format: 'text' } }],
]);

/**
 * `status [RUN]`, `log RUN` and `show RUN` with nothing else but `-w DIR`, `--workspace DIR`,
 * `--db URL` and `--json`, each at most once: the arguments yargs would hand the command, without
 * loading yargs (its set-up, help rendering and parse are a good part of these commands' start-up).
 * Any other word, flag or form (`--workspace=DIR`, a value that starts with `-`, `--`, a repeated
 * flag, a missing or extra run id) goes to yargs, which parses, validates and reports as always.
 */
export function plainReadArguments(command: string, argv: readonly string[]): Record<string, unknown> | undefined {
  const shape = PLAIN_READ_COMMANDS.get(command);
  if (shape === undefined) return undefined;
  const args: Record<string, unknown> = { _: [command], $0: 'dagent', ...shape.defaults };
  const positionals: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === '--json') {
      if (args.json !== undefined) return undefined;
      args.json = true;
      continue;
    }
    const key = word === '-w' || word === '--workspace' ? 'workspace' : word === '--db' ? 'db' : undefined;
    if (key !== undefined) {
      const value = argv[index + 1];
      if (value === undefined || value === '' || value.startsWith('-') || args[key] !== undefined) return undefined;
      args[key] = value;
      if (key === 'workspace') args.w = value;
      index += 1;
      continue;
    }
    if (word === '' || word.startsWith('-')) return undefined;
    positionals.push(word);
  }
  const [name, run, ...extra] = positionals;
  if (name !== command || extra.length > 0 || (run === undefined && shape.runRequired)) return undefined;
  if (run !== undefined) args.run = run;
  return args;
}

function commandModule(entry: CommandEntry, command: CliCommand<never> | undefined, io: CliIo, setContext: (context: CliContext) => void, setExitCode: (code: number) => void) {
  return {
    command: entry.command,
    describe: entry.describe,
    builder: (y: Argv) => {
      if (command === undefined) return y;
      const built = (command as unknown as CliCommand).builder(y as Argv<GlobalOptions>);
      for (const [line, description] of (command as unknown as CliCommand).examples ?? []) built.example(line, description);
      return built;
    },
    handler: async (args: Record<string, unknown>) => {
      if (command === undefined) throw new UsageError(`unknown command "${commandName(entry)}"`);
      const { CliContext } = await import('./context/cli-context.js');
      // The demo copies its repository into --workspace DIR: the folder may not exist yet.
      if (entry.command === 'demo' && typeof args.workspace === 'string') mkdirSync(resolve(io.cwd, args.workspace), { recursive: true });
      const context = new CliContext(io, args as GlobalOptions);
      setContext(context);
      setExitCode(await (command as unknown as CliCommand).run(context, args as GlobalOptions & Record<string, unknown>));
    },
  };
}

/** The first word of `argv` that is not an option or an option's value: the command's name. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index]!;
    if (word === '--') return undefined;
    if (VALUED_GLOBALS.has(word)) {
      index += 1;
      continue;
    }
    if (!word.startsWith('-')) return word;
  }
  return undefined;
}

async function reportError(io: CliIo, error: unknown, dbUrl: string | undefined): Promise<number> {
  // Loaded only when there is an error to report: `--help` and the like stay quick to start.
  const { describeSqliteError, visibleText } = await import('../engine/read-face.js');
  if (isSqliteError(error)) error = describeSqliteError(error, dbUrl ?? 'the database');
  // A message may quote the plan, the model or the repository: escapes in it are shown, not obeyed.
  const say = (message: string): void => writeLine(io.stderr, `dagent: ${visibleText(message, { multiline: true })}`);
  const environment = describeEnvironmentError(error) ?? (error instanceof Error && hasExitCode(error) ? await modelEnvironmentFailure(error.message) : undefined);
  if (environment !== undefined) {
    say(environment);
    return 2;
  }
  if (hasExitCode(error)) {
    say(error.message);
    return error.exitCode;
  }
  say(error instanceof Error ? error.message : String(error));
  if (io.env.DAGENT_DEBUG && error instanceof Error && error.stack) writeLine(io.stderr, error.stack);
  return isUsageError(error) ? 2 : 1;
}

/** A dagent error (DagentError and its kinds, or a usage error): its message is meant for the user. */
function hasExitCode(error: unknown): error is Error & { exitCode: number } {
  return error instanceof Error && typeof (error as { exitCode?: unknown }).exitCode === 'number';
}

/** File-system errors of the machine rather than of dagent: one line that says what to fix. */
function describeEnvironmentError(error: unknown): string | undefined {
  const { code, path, syscall } = (error ?? {}) as { code?: unknown; path?: unknown; syscall?: unknown };
  const where = typeof path === 'string' ? path : 'a file';
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `permission denied: cannot ${typeof syscall === 'string' ? syscall : 'write'} ${where} (is the workspace read-only? -w names another, --db another database)`;
    case 'EROFS':
      return `read-only file system: cannot write ${where} (-w names another workspace, --db another database)`;
    case 'ENOSPC':
      return `no space left on the device writing ${where}`;
    default:
      return undefined;
  }
}

/** A model server that cannot be reached or refuses the key: the user's setup, not the work. */
async function modelEnvironmentFailure(message: string): Promise<string | undefined> {
  const { environmentModelFailure } = await import('../engine/read-face.js');
  return environmentModelFailure(message);
}

function isSqliteError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

function isUsageError(error: unknown): boolean {
  return error instanceof Error && error.name === 'YError';
}

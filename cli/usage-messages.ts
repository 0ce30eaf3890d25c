import { commandName, type CommandEntry } from './commands/index.js';

/**
 * What yargs says of a command line it refuses, as one line a user acts on: the word or flag it
 * did not know, what is missing, a value it does not take and the ones it does, and where to look.
 * `argv` is the command line; `word`, the command's word in it; `entry`, the command it names, if any.
 */
export function usageMessage(message: string, argv: readonly string[], word: string | undefined, entry: CommandEntry | undefined): string {
  if (message.startsWith('Invalid values:')) return invalidValuesMessage(message, entry) ?? message;
  const valueless = /^Not enough arguments following: (.+)$/.exec(message);
  if (valueless !== null) return `--${valueless[1]} needs a value${entry === undefined ? '' : `: \`dagent ${commandName(entry)} --help\` says what it takes`}`;
  if (entry === undefined) return unknownCommandMessage(message, word);
  return missingArgumentsMessage(message, entry) ?? unknownArgumentsMessage(message, argv, entry) ?? message;
}

/**
 * yargs says `Unknown command: X` or, for a near miss, only `Did you mean Y?`: one line that
 * names the word it did not know, the near miss if any, and where the commands are listed.
 */
function unknownCommandMessage(message: string, word: string | undefined): string {
  if (word === undefined || !/^(Unknown command|Unknown argument|Did you mean)/.test(message)) return message;
  const nearMiss = /^Did you mean (\S+?)\??$/.exec(message)?.[1];
  return `unknown command ${word}${nearMiss === undefined ? '' : ` (did you mean ${nearMiss}?)`}: \`dagent --help\` lists the commands`;
}

/** Flags whose value is one of the run's node ids. */
const NODE_FLAGS: ReadonlySet<string> = new Set(['from', 'node']);

/**
 * yargs says `Not enough non-option arguments: got 0, need at least 1` or `Missing required
 * argument: from`: the words or flags the command still needs, as its usage names them, and
 * where to find them (a run id: `dagent status`).
 */
function missingArgumentsMessage(message: string, entry: CommandEntry): string | undefined {
  const name = commandName(entry);
  const options = /^Missing required arguments?: (.+)$/.exec(message);
  if (options !== null) {
    const names = options[1]!.split(', ');
    // `rerun --from` and `inspect --node` take a node id: the run's nodes are listed by its status.
    if (names.length === 1 && NODE_FLAGS.has(names[0]!)) return `missing --${names[0]} NODE: \`dagent status RUN\` lists the run's nodes`;
    const flags = names.map((flag) => `--${flag}`);
    return `missing ${flags.join(', ')}: \`dagent ${name} --help\` says what ${flags.length === 1 ? 'it takes' : 'they take'}`;
  }
  const got = /^Not enough non-option arguments: got (\d+)/.exec(message);
  if (got === null) return undefined;
  const missing = positionals(entry)
    .filter((word) => word.startsWith('<'))
    .slice(Number(got[1]))
    .map((word) => word.replace('..', ''));
  if (missing.length === 0) return undefined;
  if (missing.length === 1 && missing[0] === '<run>') return `missing the run id: dagent ${entry.command} (\`dagent status\` lists this workspace's runs)`;
  return `missing ${missing.join(' ')}: dagent ${entry.command} (\`dagent ${name} --help\` says more)`;
}

/**
 * yargs says `Unknown argument: frob` (or `Unknown arguments: a, b`) of a flag the command does
 * not take, and `Unknown command: extra` of a word beyond its positionals: named as typed
 * (`--frob`, `-f`, `extra`), with the command's usage and where its flags are listed.
 */
function unknownArgumentsMessage(message: string, argv: readonly string[], entry: CommandEntry): string | undefined {
  const unknown = /^Unknown (?:arguments?|commands?): (.+)$/.exec(message);
  if (unknown === null) return undefined;
  const name = commandName(entry);
  const words = unknown[1]!.split(', ').map((typed) => asTyped(typed, argv));
  return `${name} does not take ${words.join(', ')}: dagent ${entry.command} (\`dagent ${name} --help\` lists its flags)`;
}

/** `frob` as the command line has it: `--frob`, `--frob=…`, `-f` (among short flags), or the word itself. */
function asTyped(name: string, argv: readonly string[]): string {
  if (argv.some((word) => word === `--${name}` || word.startsWith(`--${name}=`) || word === `--no-${name}`)) return `--${name}`;
  if (name.length === 1 && argv.some((word) => /^-[^-]/.test(word) && word.slice(1).includes(name))) return `-${name}`;
  return name;
}

/**
 * yargs says `Invalid values:` and, per argument, `Argument: approval, Given: "x", Choices:
 * "auto", …`: each as `--approval must be one of auto, suggest, never, not "x"` (a positional as
 * `<action>`), as the other value checks say it.
 */
function invalidValuesMessage(message: string, entry: CommandEntry | undefined): string | undefined {
  const named = entry === undefined ? [] : positionals(entry).map((word) => word.replace(/[<>[\].]/g, ''));
  const lines = [...message.matchAll(/Argument: (\S+), Given: (.+?), Choices: (.+)$/gm)].map(([, argument, given, choices]) => {
    const shown = named.includes(argument!) ? `<${argument}>` : `--${argument}`;
    const values = [...choices!.matchAll(/"([^"]*)"/g)].map((match) => match[1]);
    return `${shown} must be one of ${values.join(', ')}, not ${given}`;
  });
  return lines.length === 0 ? undefined : lines.join('; ');
}

/** The positionals of the command's usage, as written there (`<run>`, `[file]`, `<task..>`). */
function positionals(entry: CommandEntry): string[] {
  return entry.command.split(' ').slice(1);
}

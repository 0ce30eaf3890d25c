import { resolve } from 'node:path';
import { commandName, DECODERS, DOWNLOADERS, downloads, INTERPRETERS, MAX_COMMAND_NESTING, SHELLS, WRAPPERS } from './command-names.js';
import { judgeWrite, locateAt, placeAt, protectedLabel, usesTainted, type CheckContext, type CommandCheckOptions, type ShellState } from './command-context.js';
import { Findings, type CommandVerdict } from './command-findings.js';
import { abbreviates, checkReadOnly, READ_ONLY_COMMANDS } from './read-only-commands.js';
import { ruleFor } from './command-rules.js';
import { resolveOnDisk } from './real-paths.js';
import { parseShell, type ShellCommand, type ShellPipeline, type ShellRedirect, type ShellWord } from './shell-syntax.js';

export type { CommandCheckOptions } from './command-context.js';
export type { CommandClass, CommandVerdict } from './command-findings.js';

/** Longer command lines are not parsed. */
export const MAX_CHECKED_COMMAND_CHARS = 100_000;

/**
 * Classifies a shell command line. It fails closed: anything it cannot parse or does not know
 * is at least risky; `safe` needs every command to be a known read-only one, with no variable
 * expansion, substitution or file-writing redirection. It judges paths by where they really lead:
 * the symbolic links of the existing part of each path it judges are followed (`options.resolvePath`,
 * lstat and readlink on the file system by default), so a link in the workspace that leads out is
 * outside. It never opens, writes or runs anything.
 */
export function checkCommand(command: string, options: CommandCheckOptions): CommandVerdict {
  const findings = new Findings();
  if (command.trim() === '') findings.add('risky', 'the command is empty');
  else if (command.length > MAX_CHECKED_COMMAND_CHARS) findings.opaque('the command is too long to check');
  else {
    const resolvePath = options.resolvePath ?? resolveOnDisk;
    const workspace = resolvePath(resolve(options.workspace), true).path;
    const context: CheckContext = {
      options,
      findings,
      workspace,
      scratch: (options.scratchDirectories ?? []).map((folder) => resolvePath(resolve(folder), true).path),
      resolvePath,
      checkScript: (source, state, depth) => checkScript(source, context, state, depth),
      checkWords: (words, state, depth, fromInput) => checkWords(words, context, state, depth, fromInput),
    };
    checkScript(command, context, { cwd: workspace, tainted: new Set() }, 0);
  }
  return findings.verdict();
}

const FORK_BOMB = /([^\s();|&]+)\s*\(\s*\)\s*\{[^}]*\1\s*\|\s*\1/;
const DANGEROUS_WORDS = /(?:^|[^\w.-])(sudo|doas|su|pkexec|mkfs(?:\.\w+)?|shutdown|reboot|poweroff|halt)(?:$|[^\w-])/;

function checkScript(source: string, context: CheckContext, state: ShellState, depth: number): void {
  const { findings } = context;
  if (FORK_BOMB.test(source)) findings.add('dangerous', 'a fork bomb (a function that pipes into itself) exhausts the machine');
  if (depth > MAX_COMMAND_NESTING) {
    findings.opaque('nested too deeply to check');
    backstop(source, findings);
    return;
  }
  const script = parseShell(source);
  if (script.problems.length > 0) {
    findings.opaque(`the command cannot be parsed fully (${script.problems[0]})`);
    backstop(source, findings);
  }
  for (const construct of script.constructs) findings.add('risky', `uses a ${construct}, which is not checked command by command`);
  if (script.background) findings.add('risky', 'starts a background job');
  for (const substitution of script.substitutions) {
    findings.add('risky', 'uses command substitution');
    checkScript(substitution, context, { cwd: state.cwd, tainted: state.tainted }, depth + 1);
  }
  for (const pipeline of script.pipelines) checkPipeline(pipeline, context, state, depth);
}

/** What cannot be parsed is still refused when it names a privileged or destructive command. */
function backstop(source: string, findings: Findings): void {
  const match = DANGEROUS_WORDS.exec(source);
  if (match !== null) findings.add('dangerous', `it cannot be checked and mentions ${match[1]}`);
}

function checkPipeline(pipeline: ShellPipeline, context: CheckContext, state: ShellState, depth: number): void {
  const { findings } = context;
  let feeder: string | undefined;
  pipeline.forEach((command, index) => {
    const words = unwrap(command.words, context, state, depth).words;
    const name = words[0] === undefined || words[0].expanded ? undefined : commandName(words[0]);
    if (index > 0 && name !== undefined && readsProgramFromInput(name, words.slice(1))) {
      if (feeder !== undefined) findings.add('dangerous', `pipes ${feeder} output into ${name}, which runs it as a program`);
      else if (SHELLS.has(name) || name === 'eval') findings.opaque(`pipes text into ${name}, which runs it as a command line`);
      else findings.add('risky', `pipes text into ${name}, which runs it as a program`);
    }
    if (name !== undefined && (DOWNLOADERS.has(name) || DECODERS.has(name))) feeder ??= DOWNLOADERS.has(name) ? `downloaded (${name})` : `decoded (${name})`;
    checkCommandParts(command, context, state, depth);
  });
}

function readsProgramFromInput(name: string, args: readonly ShellWord[]): boolean {
  if (SHELLS.has(name)) return !args.some((word) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(word.text)) && !args.some((word) => !word.text.startsWith('-') && !word.text.startsWith('+'));
  if (INTERPRETERS.test(name)) {
    const operands = args.filter((word) => !word.text.startsWith('-') || word.text === '-');
    const inline = args.some((word) => /^-(?:c|e|E|m|-eval|-command)$/.test(word.text));
    return !inline && (operands.length === 0 || operands[0]!.text === '-');
  }
  return name === 'eval' || name === 'source' || name === '.';
}

function checkCommandParts(command: ShellCommand, context: CheckContext, state: ShellState, depth: number): void {
  const { findings } = context;
  for (const assignment of command.assignments) {
    const name = assignment.text.split('=')[0]!.replace(/\+$/, '');
    if (assignment.substitutions.some((inner) => downloads(inner, depth)) || usesTainted(assignment, state)) state.tainted.add(name);
    findings.add('risky', `sets the variable ${name}${command.words.length > 0 ? ' for the command' : ''}`);
  }
  for (const redirect of command.redirects) checkRedirect(redirect, context, state);
  if (command.words.length > 0) checkWords(command.words, context, state, depth, false);
}

const INPUT_OPERATORS: ReadonlySet<string> = new Set(['<', '<<', '<<-', '<<<']);

function checkRedirect(redirect: ShellRedirect, context: CheckContext, state: ShellState): void {
  const { findings } = context;
  const { operator, target } = redirect;
  if ((operator === '>&' || operator === '<&') && /^(?:\d+|-)$/.test(target.text)) return;
  if (INPUT_OPERATORS.has(operator)) {
    if (operator === '<') {
      const place = placeAt(target, context, state);
      if (place === 'unknown') findings.add('risky', 'reads input from a path only known when it runs');
      else if (place !== 'inside' && place !== 'root' && place !== 'null' && place !== 'protected') findings.add('risky', `reads ${target.text}, outside the workspace`);
    }
    return;
  }
  judgeWrite(target, locateAt(target, context, state), findings, `redirects output to ${target.text}`);
}

interface Unwrapped {
  readonly words: readonly ShellWord[];
  /** `xargs`: the command gets more arguments, read from its input. */
  readonly moreArgumentsFromInput: boolean;
}

/** Strips `env`, `nice`, `timeout`, `xargs`, … so the wrapped command is judged. */
function unwrap(words: readonly ShellWord[], context: CheckContext, state: ShellState, depth: number): Unwrapped {
  const { findings } = context;
  let rest = words;
  let moreArgumentsFromInput = false;
  for (let guard = 0; guard < 8 && rest.length > 0 && !rest[0]!.expanded; guard += 1) {
    const name = commandName(rest[0]!);
    const spec = WRAPPERS[name];
    if (spec === undefined) break;
    let index = 1;
    let operands = spec.operands ?? 0;
    while (index < rest.length) {
      const word = rest[index]!;
      const text = word.text;
      if (text === '--') {
        index += 1;
        break;
      }
      if (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
        findings.add('risky', `sets the variable ${text.split('=')[0]} for the command`);
        index += 1;
        continue;
      }
      if (text.startsWith('-') && text.length > 1) {
        if (name === 'env' && (text === '-S' || text.startsWith('--split-string'))) {
          const script = text.includes('=') ? text.slice(text.indexOf('=') + 1) : rest[index + 1]?.text ?? '';
          findings.add('risky', 'env -S runs a command line given as text');
          checkScript(script, context, { cwd: state.cwd, tainted: state.tainted }, depth + 1);
          return { words: [], moreArgumentsFromInput };
        }
        if (name === 'env' && (text === '-C' || text.startsWith('--chdir'))) state.cwd = undefined;
        if (name === 'command' && (text === '-v' || text === '-V')) return { words: [], moreArgumentsFromInput };
        if (name === 'time') {
          const target = timeOutputFile(word, rest[index + 1]);
          if (target !== undefined) judgeWrite(target, locateAt(target, context, state), findings, `time -o writes ${target.text}`);
        }
        index += spec.valueOptions.includes(text) ? 2 : 1;
        continue;
      }
      if (operands > 0) {
        operands -= 1;
        index += 1;
        continue;
      }
      break;
    }
    if (name === 'xargs') {
      moreArgumentsFromInput = true;
      findings.add('risky', 'xargs runs a command with arguments read from its input');
    }
    if (index >= rest.length && (name === 'env' || name === 'printenv')) findings.add('risky', 'prints the environment, which may hold secrets');
    rest = rest.slice(index);
  }
  return { words: rest, moreArgumentsFromInput };
}

/** The file of GNU time's `-o FILE`, `-oFILE`, `--output=FILE` or `--output FILE` (any prefix of `--output`). */
function timeOutputFile(option: ShellWord, next: ShellWord | undefined): ShellWord | undefined {
  const text = option.text;
  const long = text.startsWith('--') && abbreviates(text, '--output');
  if (text === '-o' || (long && !text.includes('='))) return next;
  if (long) return { ...option, text: text.slice(text.indexOf('=') + 1) };
  if (/^-o./.test(text)) return { ...option, text: text.slice(2) };
  return undefined;
}

/** Judges one command given as words (a simple command, or the command of `find -exec`). */
function checkWords(words: readonly ShellWord[], context: CheckContext, state: ShellState, depth: number, fromInput: boolean): void {
  const { findings } = context;
  const unwrapped = unwrap(words, context, state, depth);
  const moreFromInput = fromInput || unwrapped.moreArgumentsFromInput;
  const [nameWord, ...args] = unwrapped.words;
  if (nameWord === undefined) return;
  if (nameWord.expanded) {
    if (nameWord.substitutions.some((script) => downloads(script, depth)) || usesTainted(nameWord, state)) findings.add('dangerous', 'runs downloaded content as a command');
    findings.opaque('the command name is only known when it runs (it comes from a variable or a substitution)');
    return;
  }
  const name = commandName(nameWord);
  const rule = ruleFor(name);
  if (rule !== undefined) {
    rule({ name, args, context, state, depth, moreFromInput });
  } else if (READ_ONLY_COMMANDS.has(name)) {
    checkReadOnly(name, args, context, state);
  } else {
    findings.add('risky', `${name} is not a known read-only command`);
    for (const arg of args) {
      const location = locateAt(arg, context, state);
      if (location.place === 'protected') findings.add('dangerous', `${name} ${arg.text}: touches ${protectedLabel(arg.text, location)}, which no command may change directly`);
    }
  }
}

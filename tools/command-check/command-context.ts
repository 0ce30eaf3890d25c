import { placeOf, type Place, type PlaceContext } from './command-places.js';
import type { Findings } from './command-findings.js';
import type { ShellWord } from './shell-syntax.js';

/** Where a command runs, for judging its paths. */
export interface CommandCheckOptions {
  /** The absolute workspace root the command runs in. */
  readonly workspace: string;
  /** The home folder `~` and `$HOME` mean. */
  readonly home: string;
  /** Folders outside the workspace where writing and deleting is only risky (e.g. /tmp). */
  readonly scratchDirectories?: readonly string[];
}

/** What every rule gets: the options, the findings to add to, and the checker itself for nested command lines. */
export interface CheckContext {
  readonly options: CommandCheckOptions;
  readonly findings: Findings;
  readonly scratch: readonly string[];
  /** Checks a nested command line (`bash -c`, `eval`, a substitution). */
  checkScript(source: string, state: ShellState, depth: number): void;
  /** Checks one command given as words (`find -exec …`); `fromInput`: more arguments come from input. */
  checkWords(words: readonly ShellWord[], state: ShellState, depth: number, fromInput: boolean): void;
}

/** The shell's working folder as the script goes on (`cd` changes it for later commands). */
export interface ShellState {
  cwd: string | undefined;
  /** Variables assigned from a download (`x=$(curl …)`): running their value runs downloaded content. */
  readonly tainted: Set<string>;
}

/** Where a word points at this point of the script. */
export function placeAt(word: ShellWord, context: CheckContext, state: ShellState): Place {
  const placeContext: PlaceContext = { workspace: context.options.workspace, home: context.options.home, scratchDirectories: context.scratch, cwd: state.cwd };
  return placeOf(word, placeContext);
}

/** A path the command writes (or truncates): devices, folders above the workspace and anything outside are refused. */
export function judgeWrite(target: ShellWord, place: Place, findings: Findings, what: string): void {
  switch (place) {
    case 'null':
      return;
    case 'device':
      findings.add('dangerous', `${what}: writing to a device can destroy a disk`);
      return;
    case 'outside':
    case 'above':
      findings.add('dangerous', `${what}: it writes outside the workspace`);
      return;
    case 'protected':
      findings.add('dangerous', `${what}: it writes into ${protectedLabel(target.text)}, which no command may change directly`);
      return;
    case 'unknown':
      findings.add('risky', `${what}: a path only known when it runs`);
      return;
    default:
      findings.add('risky', `${what}: it writes a file`);
  }
}

export function protectedLabel(text: string): string {
  return /\.dagent/i.test(text) ? '.dagent/' : '.git/';
}

/** Whether a word expands a variable that holds downloaded content. */
export function usesTainted(word: ShellWord, state: ShellState): boolean {
  if (!word.expanded || state.tainted.size === 0) return false;
  for (const match of word.text.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) if (state.tainted.has(match[1]!)) return true;
  return false;
}

/** Non-option operands, honouring `--`. */
export function operandsOf(args: readonly ShellWord[]): ShellWord[] {
  const operands: ShellWord[] = [];
  let optionsEnded = false;
  for (const word of args) {
    if (!optionsEnded && word.text === '--') optionsEnded = true;
    else if (optionsEnded || !word.text.startsWith('-') || word.text === '-') operands.push(word);
  }
  return operands;
}

/** A short option cluster holding `flag` (`-rf` holds `r` and `f`). */
export function hasShortFlag(args: readonly ShellWord[], flag: string): boolean {
  return args.some((word) => /^-[a-zA-Z]+$/.test(word.text) && word.text.includes(flag));
}

import { locate, type ActsOn, type Location, type Place, type PlaceContext } from './command-places.js';
import type { Findings } from './command-findings.js';
import type { ResolvePath } from './real-paths.js';
import type { ShellWord } from './shell-syntax.js';

/** Where a command runs, for judging its paths. */
export interface CommandCheckOptions {
  /** The absolute workspace root the command runs in. */
  readonly workspace: string;
  /** The home folder `~` and `$HOME` mean. */
  readonly home: string;
  /**
   * Temp folders (e.g. /tmp), where a command may make new files and folders of its own: writing
   * something that does not exist yet directly in one is only risky. What already exists there is
   * outside the workspace like anything else.
   */
  readonly scratchDirectories?: readonly string[];
  /** Follows the symbolic links of the paths it judges: the file system by default (`resolveOnDisk`). */
  readonly resolvePath?: ResolvePath;
}

/** What every rule gets: the options, the findings to add to, and the checker itself for nested command lines. */
export interface CheckContext {
  readonly options: CommandCheckOptions;
  readonly findings: Findings;
  /** The workspace's real path, and the temp folders' ones. */
  readonly workspace: string;
  readonly scratch: readonly string[];
  readonly resolvePath: ResolvePath;
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

export function placeContextOf(context: CheckContext, state: ShellState): PlaceContext {
  return { workspace: context.workspace, home: context.options.home, scratchDirectories: context.scratch, cwd: state.cwd, resolvePath: context.resolvePath };
}

/** Where a word points at this point of the script, symbolic links followed. */
export function locateAt(word: ShellWord, context: CheckContext, state: ShellState, actsOn: ActsOn = 'target'): Location {
  return locate(word, placeContextOf(context, state), actsOn);
}

export function placeAt(word: ShellWord, context: CheckContext, state: ShellState, actsOn: ActsOn = 'target'): Place {
  return locateAt(word, context, state, actsOn).place;
}

/**
 * Where a path outside the workspace really is, for the human reading a refusal: the place a link
 * leads to, the absolute path of a relative one, and why the temp folder did not count as scratch.
 */
export function whereNote(word: ShellWord, location: Location): string {
  const { path } = location;
  if (path === undefined) return '';
  if (location.throughLink) return ` (${word.text} leads to ${path} through a symbolic link)`;
  if (location.inTemp !== undefined) {
    const there = location.existing === path ? `${path} already exists` : `${location.existing ?? path} already exists`;
    return ` (${there}; in the temp folder ${location.inTemp} a command may only make new files and folders of its own)`;
  }
  return word.text === path || word.text === `${path}/` ? '' : ` (${path})`;
}

/** A path the command writes (or truncates): devices, folders above the workspace and anything outside are refused. */
export function judgeWrite(target: ShellWord, location: Location, findings: Findings, what: string): void {
  switch (location.place) {
    case 'null':
      return;
    case 'device':
      findings.add('dangerous', `${what}: writing to a device can destroy a disk${whereNote(target, location)}`);
      return;
    case 'outside':
    case 'above':
      findings.add('dangerous', `${what}: it writes outside the workspace${whereNote(target, location)}`);
      return;
    case 'protected':
      findings.add('dangerous', `${what}: it writes into ${protectedLabel(target.text, location)}, which no command may change directly`);
      return;
    case 'unknown':
      findings.add('risky', `${what}: a path only known when it runs`);
      return;
    default:
      findings.add('risky', `${what}: it writes a file`);
  }
}

export function protectedLabel(text: string, location?: Location): string {
  if (location?.protectedName !== undefined) return `${location.protectedName}/`;
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

import { looksLikePath, type Location, type Place } from './command-places.js';
import { locateAt, whereNote, type CheckContext, type ShellState } from './command-context.js';
import type { ShellWord } from './shell-syntax.js';

/** Commands that only read, and the options that would make them write or run something. */
export const READ_ONLY_COMMANDS: ReadonlySet<string> = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'pwd', 'echo', 'printf', 'true', 'false', ':', 'which',
  'type', 'file', 'stat', 'du', 'df', 'tree', 'sort', 'uniq', 'cut', 'tr', 'nl', 'basename', 'dirname', 'realpath', 'readlink',
  'date', 'whoami', 'id', 'uname', 'hostname', 'diff', 'cmp', 'comm', 'md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum',
  'sha512sum', 'b2sum', 'cksum', 'sum', 'jq', 'column', 'seq', 'tac', 'rev', 'od', 'hexdump', 'xxd', 'strings', 'test', '[',
  'sleep', 'less', 'more', 'join', 'paste', 'fold', 'expand', 'unexpand', 'fmt', 'nproc', 'arch', 'tty', 'locale', 'groups',
]);
/** Arguments of these are not paths (so `/` in them is not a read outside the workspace). */
const NON_PATH_ARGUMENTS: ReadonlySet<string> = new Set(['echo', 'printf', 'test', '[', 'seq', 'sleep', 'date', 'which', 'type', 'true', 'false', ':', 'tr', 'expand', 'unexpand']);
const PATTERN_FIRST: ReadonlySet<string> = new Set(['grep', 'egrep', 'fgrep', 'rg', 'ag']);

function unsafeOption(name: string, args: readonly ShellWord[]): string | undefined {
  const texts = args.map((word) => word.text);
  const has = (...options: string[]): boolean => texts.some((text) => options.some((option) => text === option || text.startsWith(`${option}=`) || abbreviates(text, option)));
  const operands = texts.filter((text) => !text.startsWith('-'));
  switch (name) {
    case 'sort':
      if (has('--compress-program')) return 'sort --compress-program runs a program';
      return has('-o', '--output') || texts.some((text) => /^-[a-zA-Z]*o/.test(text)) ? 'sort -o writes a file' : undefined;
    case 'test':
    case '[':
      // bash evaluates an array subscript of `-v NAME[…]` as arithmetic, which runs `$(…)` inside it.
      return texts.includes('-v') ? `${name} -v evaluates an array subscript, which can run commands` : undefined;
    case 'printf':
      return texts.some((text) => /^-[a-zA-Z]*v/.test(text)) ? 'printf -v assigns a variable, whose array subscript can run commands' : undefined;
    case 'uniq':
      return operands.length > 1 ? 'uniq with two files writes the second' : undefined;
    case 'tree':
      return has('-o') ? 'tree -o writes a file' : undefined;
    case 'date':
      return has('-s', '--set') ? 'date -s sets the clock' : undefined;
    case 'hostname':
      return operands.length > 0 || has('-F', '--file', '-b', '--boot') ? 'hostname with a name sets it' : undefined;
    case 'rg':
      return has('--pre', '--pre-glob', '-z', '--search-zip') ? 'rg --pre runs other programs' : undefined;
    case 'xxd':
      return operands.length > 1 || has('-r', '-revert') ? 'xxd with two files writes the second' : undefined;
    case 'file':
      return has('-C', '--compile') ? 'file -C writes a file' : undefined;
    default:
      return undefined;
  }
}

/**
 * GNU long options may be shortened to any unambiguous prefix (`--outp` is `--output`): an
 * argument counts as `option` when it is a prefix of it at least three characters after `--`.
 */
export function abbreviates(text: string, option: string): boolean {
  if (!option.startsWith('--') || !text.startsWith('--')) return false;
  const name = text.split('=', 1)[0]!;
  return name.length >= 3 && option.startsWith(name);
}

export function checkReadOnly(name: string, args: readonly ShellWord[], context: CheckContext, state: ShellState): void {
  const { findings } = context;
  const unsafe = unsafeOption(name, args);
  if (unsafe !== undefined) findings.add('risky', unsafe);
  if (args.some((word) => word.expanded)) findings.add('risky', `${name} expands variables or substitutions, whose values are only known when it runs`);
  if (NON_PATH_ARGUMENTS.has(name)) return;
  const explicitPattern = args.some((word) => /^-(?:e|f|-regexp|-file)/.test(word.text));
  let skippedPattern = !PATTERN_FIRST.has(name) || explicitPattern;
  let operands = 0;
  for (const word of args) {
    if (word.text.startsWith('-')) continue;
    if (!skippedPattern) {
      skippedPattern = true;
      continue;
    }
    operands += 1;
    const location = locateAt(word, context, state);
    if (!looksLikePath(word) && !namesSomething(location)) continue;
    if (!isReadable(location.place)) findings.add('risky', `${name} reads ${word.text}, outside the workspace${whereNote(word, location)}`);
  }
  if (operands === 0 && readsItsFolder(name, args)) {
    // `cd link && ls`, `cd .. && grep -r key`: with no path, these read the folder they run in.
    const location = locateAt(HERE, context, state);
    if (location.place !== 'unknown' && !isReadable(location.place)) findings.add('risky', `${name} reads the folder it runs in, ${location.path ?? state.cwd}, outside the workspace`);
  }
}

const HERE: ShellWord = { text: '.', quoted: false, expanded: false, glob: false, tilde: false, substitutions: [], processSubstitution: false };
/** Commands that read the folder they run in when given no path. */
const FOLDER_READERS: ReadonlySet<string> = new Set(['ls', 'du', 'tree', 'rg', 'ag', 'find']);

function readsItsFolder(name: string, args: readonly ShellWord[]): boolean {
  if (FOLDER_READERS.has(name)) return true;
  return PATTERN_FIRST.has(name) && args.some((word) => /^-[a-zA-Z]*[rR]/.test(word.text) || word.text === '--recursive' || word.text === '--dereference-recursive');
}

function isReadable(place: Place): boolean {
  return place === 'inside' || place === 'root' || place === 'protected' || place === 'null';
}

/**
 * A plain word (`notes`, `docs/a.md`) is a path when it names something that exists, or a symbolic
 * link leads it out: `cat notes` reads /etc/passwd when `notes` links there. A word that names
 * nothing (a pattern, a count) is left alone, even after a `cd` out of the workspace.
 */
function namesSomething(location: Location): boolean {
  return location.throughLink || (location.path !== undefined && location.existing === location.path);
}

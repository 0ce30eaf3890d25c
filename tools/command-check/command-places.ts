import { isAbsolute, join, resolve } from 'node:path';
import { isInside, protectedNameInPath } from '../workspace/index.js';
import type { ShellWord } from './shell-syntax.js';

/**
 * Where a command's path argument points, judged from its text alone (no file system access):
 * - `root`: the workspace itself; `above`: a folder that contains the workspace (`/`, `~`)
 * - `inside`: below the workspace; `protected`: below it, in `.git/` or `.dagent/`
 * - `scratch`: below a scratch folder such as /tmp; `outside`: anywhere else
 * - `device`: a device under /dev; `null`: /dev/null and the standard streams
 * - `unknown`: only known when the command runs (variables, substitutions, an unknown folder)
 */
export type Place = 'root' | 'above' | 'inside' | 'protected' | 'scratch' | 'outside' | 'device' | 'null' | 'unknown';

export interface PlaceContext {
  readonly workspace: string;
  readonly home: string;
  readonly scratchDirectories: readonly string[];
  /** The shell's working folder at this point of the script; undefined after `cd $X`. */
  readonly cwd: string | undefined;
}

const HARMLESS_DEVICES: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin', '/dev/tty', '/dev/zero', '/dev/random', '/dev/urandom', '/dev/full']);
const GLOB_CHARS = /[*?[{]/;
/** Where `~user/…` points: someone else's home, outside the workspace whatever the user's name. */
const OTHER_USERS_HOME = '/nonexistent-home-of-another-user';
/** A last component that matches everything in its folder. */
const MATCHES_EVERYTHING = /^(?:\*+|\.\*|\*\.\*|\.?\[[^\]]*\]\*|\{\.\*,\*\}|\{\*,\.\*\})$/;

/** The absolute path a word names (tilde and `$HOME` expanded), or undefined when it is not knowable. */
export function pathOfWord(word: ShellWord, context: PlaceContext): string | undefined {
  let text = word.text;
  if (word.expanded) {
    const home = /^\$\{?HOME\}?(?=\/|$)/.exec(text);
    if (home === null || /\$/.test(text.slice(home[0].length))) return undefined;
    text = context.home + text.slice(home[0].length);
  } else if (word.tilde) {
    if (text === '~' || text.startsWith('~/')) text = context.home + text.slice(1);
    else return OTHER_USERS_HOME;
  }
  if (!isAbsolute(text) && context.cwd === undefined) return undefined;
  return resolve(context.cwd ?? context.workspace, text);
}

/** Where a path argument points. Pure. */
export function placeOf(word: ShellWord, context: PlaceContext): Place {
  let target = word;
  let everything = false;
  if (word.glob) {
    const firstGlob = word.text.search(GLOB_CHARS);
    const folderEnd = word.text.lastIndexOf('/', firstGlob);
    const folder = word.text.slice(0, folderEnd + 1);
    const rest = word.text.slice(folderEnd + 1);
    everything = !rest.includes('/') && MATCHES_EVERYTHING.test(rest);
    // A glob names entries of its folder: judge `folder/…` (or the folder itself when it matches everything).
    target = { ...word, text: everything ? folder === '' ? '.' : folder : join(folder === '' ? '.' : folder, 'entry'), glob: false };
  }
  const path = pathOfWord(target, context);
  if (path === undefined) return 'unknown';
  if (HARMLESS_DEVICES.has(path) || path.startsWith('/dev/fd/')) return 'null';
  if (path === '/dev' || path.startsWith('/dev/')) return 'device';
  if (path === context.workspace) return 'root';
  if (isInside(path, context.workspace)) return 'above';
  if (isInside(context.workspace, path)) {
    const components = path.slice(context.workspace.length).split('/');
    return protectedNameInPath(components) === undefined ? 'inside' : 'protected';
  }
  for (const scratch of context.scratchDirectories) {
    if (isInside(scratch, path) && path !== scratch) return 'scratch';
  }
  return 'outside';
}

/** True when a word looks like a path rather than a pattern or a number (for read-only checks). */
export function looksLikePath(word: ShellWord): boolean {
  const text = word.text;
  return word.tilde || text.startsWith('/') || text === '..' || text.startsWith('../') || text.includes('/../') || text.endsWith('/..') || /^\$\{?HOME\}?/.test(text);
}

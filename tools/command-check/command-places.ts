import { isAbsolute, join, relative, resolve } from 'node:path';
import { isInside, protectedNameInPath } from '../workspace/index.js';
import type { ResolvePath } from './real-paths.js';
import type { ShellWord } from './shell-syntax.js';

/**
 * Where a command's path argument points, once the symbolic links of its existing part are
 * followed (as the OS will when the command runs):
 * - `root`: the workspace itself; `above`: a folder that contains the workspace (`/`, `~`)
 * - `inside`: below the workspace; `protected`: below it, in `.git/` or `.dagent/`
 * - `scratch`: something new directly in a temp folder (see `placeOf`); `outside`: anywhere else
 * - `device`: a device under /dev; `null`: /dev/null and the standard streams
 * - `unknown`: only known when the command runs (variables, substitutions, an unknown folder)
 */
export type Place = 'root' | 'above' | 'inside' | 'protected' | 'scratch' | 'outside' | 'device' | 'null' | 'unknown';

/**
 * What a command does with a path: `target` reaches through a link named last (writing, reading,
 * `chmod`); `entry` acts on the link itself (`rm link`, `mv link x`), unless the text ends in `/`.
 */
export type ActsOn = 'target' | 'entry';

export interface PlaceContext {
  /** The workspace's real path. */
  readonly workspace: string;
  readonly home: string;
  /** Real paths of the temp folders. */
  readonly scratchDirectories: readonly string[];
  /** The shell's working folder at this point of the script; undefined after `cd $X`. */
  readonly cwd: string | undefined;
  readonly resolvePath: ResolvePath;
}

/** A place, with what a refusal needs to say where. */
export interface Location {
  readonly place: Place;
  /** Where the path really leads; absent when only known when it runs. */
  readonly path?: string;
  /** Its text names a place inside the workspace, and a symbolic link leads it out. */
  readonly throughLink: boolean;
  /** Outside, in this temp folder, where something already exists on its way (`existing`). */
  readonly inTemp?: string;
  /** The real path of its longest existing part. */
  readonly existing?: string;
  /** `.git` or `.dagent`, when the place is `protected`. */
  readonly protectedName?: string;
}

const HARMLESS_DEVICES: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin', '/dev/tty', '/dev/zero', '/dev/random', '/dev/urandom', '/dev/full']);
const GLOB_CHARS = /[*?[{]/;
/** Where `~user/…` points: someone else's home, outside the workspace whatever the user's name. */
const OTHER_USERS_HOME = '/nonexistent-home-of-another-user';
/** A last component that matches everything in its folder. */
const MATCHES_EVERYTHING = /^(?:\*+|\.\*|\*\.\*|\.?\[[^\]]*\]\*|\{\.\*,\*\}|\{\*,\.\*\})$/;
/** Text whose last component is a folder to go into (`dir/`, `dir/.`, `..`): a link there is followed. */
const ENTERS_LAST = /(?:^|\/)\.{0,2}$/;

/** The absolute path a word names (tilde and `$HOME` expanded), lexically normalised, or undefined when it is not knowable. */
export function pathOfWord(word: ShellWord, context: Omit<PlaceContext, 'resolvePath'>): string | undefined {
  const raw = rawPathOfWord(word, context);
  return raw === undefined ? undefined : resolve(raw);
}

/** Where a word leads once its links are followed (`cd -P`), or undefined when it is not knowable. */
export function physicalPathOfWord(word: ShellWord, context: PlaceContext): string | undefined {
  const raw = rawPathOfWord(word, context);
  return raw === undefined ? undefined : context.resolvePath(raw, true).path;
}

/** The absolute path as the OS will read it: `..` stays where it is, since after a link it climbs from the link's target. */
function rawPathOfWord(word: ShellWord, context: Omit<PlaceContext, 'resolvePath'>): string | undefined {
  let text = word.text;
  if (word.expanded) {
    const home = /^\$\{?HOME\}?(?=\/|$)/.exec(text);
    if (home === null || /\$/.test(text.slice(home[0].length))) return undefined;
    text = context.home + text.slice(home[0].length);
  } else if (word.tilde) {
    if (text === '~' || text.startsWith('~/')) text = context.home + text.slice(1);
    else return OTHER_USERS_HOME;
  }
  if (isAbsolute(text)) return text;
  return context.cwd === undefined ? undefined : `${context.cwd}/${text}`;
}

/** A glob names entries of its folder: `folder/…`, or the folder itself when it matches everything. */
function globTarget(word: ShellWord): ShellWord {
  if (!word.glob) return word;
  const firstGlob = word.text.search(GLOB_CHARS);
  const folderEnd = word.text.lastIndexOf('/', firstGlob);
  const folder = word.text.slice(0, folderEnd + 1);
  const rest = word.text.slice(folderEnd + 1);
  const everything = !rest.includes('/') && MATCHES_EVERYTHING.test(rest);
  return { ...word, text: everything ? (folder === '' ? '.' : folder) : join(folder === '' ? '.' : folder, 'entry'), glob: false };
}

/** Where a path argument points. */
export function placeOf(word: ShellWord, context: PlaceContext, actsOn: ActsOn = 'target'): Place {
  return locate(word, context, actsOn).place;
}

/**
 * Where a path argument points, symbolic links of its existing part followed. In a temp folder
 * (/tmp), only something new made directly in it is `scratch`: a path whose longest existing part
 * is the temp folder itself (`/tmp/x.log`, `/tmp/build/out` while /tmp/build does not exist yet),
 * the command's own scratch files. Whatever already exists there, and anything new inside a folder
 * that exists there, is `outside` like any other place: demo and eval workspaces, and the folders
 * beside and above this workspace, live in the temp folder.
 */
export function locate(word: ShellWord, context: PlaceContext, actsOn: ActsOn = 'target'): Location {
  const target = globTarget(word);
  const raw = rawPathOfWord(target, context);
  if (raw === undefined) return { place: 'unknown', throughLink: false };
  const lexical = resolve(raw);
  if (HARMLESS_DEVICES.has(lexical) || lexical.startsWith('/dev/fd/')) return { place: 'null', path: lexical, throughLink: false };
  const resolved = context.resolvePath(raw, actsOn === 'target' || ENTERS_LAST.test(target.text));
  const path = resolved.path;
  const lexicallyInside = isInside(context.workspace, lexical);
  const found = { path, existing: resolved.existing };
  if (HARMLESS_DEVICES.has(path)) return { place: 'null', ...found, throughLink: false };
  if (path === '/dev' || path.startsWith('/dev/')) return { place: 'device', ...found, throughLink: lexicallyInside };
  if (path === context.workspace) return { place: 'root', ...found, throughLink: lexicallyInside && lexical !== path };
  if (isInside(path, context.workspace)) return { place: 'above', ...found, throughLink: lexicallyInside };
  if (isInside(context.workspace, path)) {
    const components = [...relative(context.workspace, path).split('/'), ...(lexicallyInside ? relative(context.workspace, lexical).split('/') : [])];
    const protectedName = protectedNameInPath(components);
    return protectedName === undefined ? { place: 'inside', ...found, throughLink: false } : { place: 'protected', ...found, throughLink: false, protectedName };
  }
  const temps = context.scratchDirectories.filter((scratch) => isInside(scratch, path) && path !== scratch);
  if (temps.includes(resolved.existing)) return { place: 'scratch', ...found, throughLink: false };
  const temp = temps.reduce<string | undefined>((inner, scratch) => (inner === undefined || scratch.length > inner.length ? scratch : inner), undefined);
  return { place: 'outside', ...found, throughLink: lexicallyInside, ...(temp === undefined ? {} : { inTemp: temp }) };
}

/** True when a word looks like a path rather than a pattern or a number (for read-only checks). */
export function looksLikePath(word: ShellWord): boolean {
  const text = word.text;
  return word.tilde || text.startsWith('/') || text === '..' || text.startsWith('../') || text.includes('/../') || text.endsWith('/..') || /^\$\{?HOME\}?/.test(text);
}

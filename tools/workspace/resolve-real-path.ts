import { lstatSync, readlinkSync } from 'node:fs';
import { isAbsolute, join, parse, sep } from 'node:path';
import { SymlinkLoopError } from './path-errors.js';
import { errorCode } from '../tool-errors/index.js';

/** More hops than any sane layout needs; Linux's own limit is 40. */
export const MAX_SYMLINK_HOPS = 40;

/**
 * Where `relative` under the real (symlink-free) directory `start` really is, like `realpath`,
 * but for paths that do not exist yet too: it follows every symbolic link component by component,
 * including dangling ones (whose target is where a write would land), and stops at the first
 * missing component, whose remaining names cannot be links. `display` names the path in errors.
 * Each component is looked at with a synchronous call: a few microseconds each, where a round
 * trip through libuv's thread pool costs 0.2–0.8 ms on a busy machine, and a tool call resolves
 * its path before and while it runs.
 */
export async function resolveRealPath(start: string, relative: string, display: string): Promise<string> {
  return walkRealPath(start, relative, display).path;
}

/** Where a walk through the file system led. */
export interface RealPathWalk {
  /** Where the path really leads. */
  readonly path: string;
  /** The real path of its longest existing part: `path` itself when all of it exists. */
  readonly existing: string;
}

export interface RealPathWalkOptions {
  /**
   * Whether a symbolic link in the last place is followed (the default: what opening the path
   * reaches). `false` stops at the link itself, as `rm` and `mv` treat a link they are given.
   */
  readonly followLast?: boolean;
}

/**
 * `resolveRealPath`, synchronous, telling also how much of the path exists. Reads the file system
 * with lstat and readlink only. Throws `SymlinkLoopError` after MAX_SYMLINK_HOPS links, and the
 * file system's own error for anything but a missing component (EACCES, ELOOP…).
 */
export function walkRealPath(start: string, relative: string, display: string, options: RealPathWalkOptions = {}): RealPathWalk {
  const followLast = options.followLast ?? true;
  let current = start;
  let pending = splitComponents(relative);
  let hops = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === '..') {
      current = parse(current).root === current ? current : join(current, '..');
      continue;
    }
    const next = join(current, name);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch (error) {
      const code = errorCode(error);
      // Nothing exists from here on: the rest is plain names (lexically normalised; a `..` that
      // follows a missing directory fails in the OS too, so resolving it lexically only refuses more).
      if (code === 'ENOENT' || code === 'ENOTDIR') return { path: join(next, ...pending), existing: current };
      throw error;
    }
    if (!isLink || (!followLast && pending.length === 0)) {
      current = next;
      continue;
    }
    hops += 1;
    if (hops > MAX_SYMLINK_HOPS) throw new SymlinkLoopError(display);
    const target = readlinkSync(next);
    if (isAbsolute(target)) {
      current = parse(target).root;
      pending = [...splitComponents(target.slice(current.length)), ...pending];
    } else {
      pending = [...splitComponents(target), ...pending];
    }
  }
  return { path: current, existing: current };
}

function splitComponents(path: string): string[] {
  return path.split(sep === '\\' ? /[\\/]/ : '/').filter((component) => component !== '' && component !== '.');
}

import { resolve } from 'node:path';
import { walkRealPath } from '../workspace/index.js';

/** Where a path a command names really leads. */
export interface ResolvedPath {
  /** The path with the symbolic links of its existing part followed. */
  readonly path: string;
  /** The real path of its longest existing part: `path` itself when it all exists. */
  readonly existing: string;
}

/**
 * Resolves an absolute path as a command's text gives it (not normalised: a `..` after a link
 * means the link target's parent, as the OS reads it). `followLast` is false when the command
 * acts on the entry itself (`rm link`, `mv link x` act on the link, not on where it leads).
 */
export type ResolvePath = (path: string, followLast: boolean) => ResolvedPath;

/** Re-walks after a missing folder and a `..`; more rounds than any path needs. */
const MAX_REWALKS = 8;

/**
 * The checker's resolver: the file system, read with lstat and readlink only (the path guard's
 * walk), never to open, write or run anything. A path that cannot be walked (a link loop, a
 * folder it may not search) fails in the OS too: it is judged by its text.
 */
export function resolveOnDisk(path: string, followLast: boolean): ResolvedPath {
  let walk = walkOrText(path, followLast);
  // After a missing folder the rest, `..` included, was read lexically; a command that makes the
  // folder first would reach where that `..` leads, so that place is walked too.
  const climbs = path.split('/').includes('..');
  for (let round = 0; climbs && round < MAX_REWALKS && walk.existing !== walk.path; round += 1) {
    const again = walkOrText(walk.path, followLast);
    if (again.path === walk.path && again.existing === walk.existing) break;
    walk = again;
  }
  return walk;
}

function walkOrText(path: string, followLast: boolean): ResolvedPath {
  try {
    return walkRealPath('/', path, path, { followLast });
  } catch {
    return { path: resolve(path), existing: '/' };
  }
}

import type { ScannedFile } from './file-scan.js';
import type { WriteSet } from './file-write-set.js';

/** Paths whose content differs between a scan boundary and a later scan (created, changed or deleted), sorted. */
export function scanChanges(before: Readonly<Record<string, string>>, after: ReadonlyMap<string, ScannedFile>): string[] {
  const changed = new Set<string>();
  for (const [path, hash] of Object.entries(before)) if (after.get(path)?.hash !== hash) changed.add(path);
  for (const path of after.keys()) if (!Object.hasOwn(before, path)) changed.add(path);
  return [...changed].sort();
}

export interface AttributedChanges {
  /** Changes the node's write set covers: the node's own. */
  readonly attributed: readonly string[];
  /** Changes no write set covers: made by someone, owned by no node. */
  readonly stray: readonly string[];
}

/**
 * Splits the changes seen during a node: those its write set covers are its own; those another
 * node's write set covers belong to that sibling and are left out; the rest are stray.
 */
export function attributeChanges(paths: readonly string[], nodeWrites: WriteSet, otherWrites?: WriteSet): AttributedChanges {
  const attributed: string[] = [];
  const stray: string[] = [];
  for (const path of paths) {
    if (nodeWrites.covers(path)) attributed.push(path);
    else if (otherWrites === undefined || !otherWrites.covers(path)) stray.push(path);
  }
  return { attributed, stray };
}

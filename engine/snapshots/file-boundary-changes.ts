import type { ScannedFile } from './file-scan.js';
import { createWriteSet, type WriteSet } from './file-write-set.js';

/** Paths whose content differs between a scan boundary and a later scan (created, changed or deleted), sorted. */
export function scanChanges(before: Readonly<Record<string, string>>, after: ReadonlyMap<string, ScannedFile>): string[] {
  const changed = new Set<string>();
  for (const [path, hash] of Object.entries(before)) if (after.get(path)?.hash !== hash) changed.add(path);
  for (const path of after.keys()) if (!Object.hasOwn(before, path)) changed.add(path);
  return [...changed].sort();
}

/**
 * The changes seen in a node's command window that are not its own: the paths another node's
 * tools wrote in the window (that node records them), and the nodes whose commands ran at the same
 * time (a change nobody's tools wrote may be theirs).
 */
export interface WindowSharing {
  /** Changed paths left to the node whose tools wrote them. */
  readonly othersWrote: ReadonlySet<string>;
  /** Other nodes whose command windows overlapped this one, sorted. */
  readonly overlapped: readonly string[];
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

/**
 * Splits a node's changes into its own (`attributed`, `stray`) and a sibling's (`leftOut`). In a
 * git workspace a sibling's change is one its declared writes cover; without git (`sharing`, the
 * node's command window), one its tools wrote in the window: its declared writes alone do not
 * make a change its own, so one made after it ended is not lost.
 */
export function splitNodeChanges(paths: readonly string[], nodeWrites: WriteSet, sharing: WindowSharing | undefined, otherWrites: readonly string[] | undefined): AttributedChanges & { readonly leftOut: ReadonlySet<string> } {
  const split =
    sharing === undefined
      ? attributeChanges(paths, nodeWrites, otherWrites === undefined ? undefined : createWriteSet(otherWrites))
      : attributeChanges(
          paths.filter((path) => !sharing.othersWrote.has(path)),
          nodeWrites,
        );
  const own = new Set([...split.attributed, ...split.stray]);
  return { ...split, leftOut: new Set(paths.filter((path) => !own.has(path))) };
}

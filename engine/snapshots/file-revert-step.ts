import { isBinaryContent } from './file-content.js';
import { isRedacted, sameContent, type FileState } from './file-state.js';
import { reverseMerge } from './reverse-merge.js';

/** What reverting one file does. */
export type RevertStep =
  | { readonly action: 'unchanged' }
  /** Put the recorded content back exactly (`overwrites`: over edits made since, as `force` asked). */
  | { readonly action: 'restore'; readonly bytes: Buffer; readonly overwrites?: true }
  /** Put the recorded symbolic link back (its target, never followed). */
  | { readonly action: 'relink'; readonly target: string; readonly overwrites?: true }
  /** The change made a file that did not exist: delete it. */
  | { readonly action: 'delete'; readonly overwrites?: true }
  /** Later edits survive: the change was undone by a three-way merge onto the current content. */
  | { readonly action: 'patch'; readonly bytes: Buffer }
  /** Left untouched; `unrestorable`: its content before is not held, so `force` cannot put it back either. */
  | { readonly action: 'conflict'; readonly reason: string; readonly unrestorable?: true };

export interface RevertStepInput {
  /** The content to go back to (before the change). */
  readonly target: FileState;
  /** The content the change produced; undefined when it was not recorded (then the current content is taken as it). */
  readonly changedTo: FileState | undefined;
  readonly current: FileState;
  /** Write `target` even when the file changed since in a way the change cannot be reversed. */
  readonly force: boolean;
}

/** Why a file whose content before held a secret is left as it is. */
export const SECRET_KEPT_OUT = 'its content before held a secret (a key or token), which dagent never stores, so it cannot be put back: left as it is (put the secret back from your own copy)';

/** Why a file whose content before was too large to keep is left as it is. */
export const UNRECORDED_KEPT_OUT = 'its content before was not recorded (larger than the snapshot limit), so it cannot be put back: left as it is';

/**
 * How to undo one recorded change (`target` → `changedTo`) on the file as it is now. When the
 * file is still as the change left it, `target` comes back exactly; when it changed since, the
 * change is undone by a three-way merge onto the current content (`reverseMerge`: a later edit of
 * other lines, even the next one, survives), and lines the change made that were changed again
 * are a conflict unless forced. Pure.
 */
export function revertStep(input: RevertStepInput): RevertStep {
  const { target, changedTo, current, force } = input;
  if (sameContent(current, target)) return { action: 'unchanged' };
  if (target.kind === 'unrecorded') return { action: 'conflict', reason: UNRECORDED_KEPT_OUT, unrestorable: true };
  // Writing the stored copy back would put `[REDACTED]` where the user's key was, even forced.
  if (isRedacted(target)) return { action: 'conflict', reason: SECRET_KEPT_OUT, unrestorable: true };
  const exact: RevertStep =
    target.kind === 'absent' ? { action: 'delete' } : target.kind === 'link' ? { action: 'relink', target: target.target } : { action: 'restore', bytes: target.bytes };
  if (changedTo === undefined || sameContent(current, changedTo)) return exact;
  // Forced over a file edited since the change: the edits go, and the revert says so.
  if (force) return { ...exact, overwrites: true };
  if ([target, changedTo, current].some((state) => state.kind === 'link')) return { action: 'conflict', reason: 'the symbolic link has changed since' };
  return reversePatchStep(target, changedTo, current);
}

function reversePatchStep(target: FileState, changedTo: FileState, current: FileState): RevertStep {
  if (target.kind === 'absent') return { action: 'conflict', reason: 'the file was created by the change and has been edited since' };
  if (changedTo.kind === 'absent') return { action: 'conflict', reason: 'the file was deleted by the change and has been re-created since' };
  if (current.kind === 'absent') return { action: 'conflict', reason: 'the file has been deleted since' };
  if (target.kind !== 'file' || changedTo.kind !== 'file' || current.kind !== 'file') {
    return { action: 'conflict', reason: 'the file has changed since and its content after the change was not recorded' };
  }
  if ([target, changedTo, current].some((state) => isBinaryContent(state.bytes))) {
    return { action: 'conflict', reason: 'the binary file has changed since' };
  }
  const patched = reverseMerge({ before: target.bytes.toString('utf8'), after: changedTo.bytes.toString('utf8'), current: current.bytes.toString('utf8') });
  if (patched === null) return { action: 'conflict', reason: 'the file has changed since in the lines the change touched' };
  return { action: 'patch', bytes: Buffer.from(patched, 'utf8') };
}

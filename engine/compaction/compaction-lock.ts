import type { Session } from '../session/index.js';

/**
 * Surfaces with a compaction in progress. Process-wide on purpose: whoever starts a compaction
 * (the pre-step check, an overflow, a background candidate, a direct call), a second one on the
 * same surface must not interleave with it. Keyed weakly: a closed session is simply forgotten.
 */
const compacting = new WeakSet<Session>();

/** Takes the surface's compaction lock; false when it is already held. */
export function tryLockCompaction(session: Session): boolean {
  if (compacting.has(session)) return false;
  compacting.add(session);
  return true;
}

export function unlockCompaction(session: Session): void {
  compacting.delete(session);
}

export function isCompacting(session: Session): boolean {
  return compacting.has(session);
}

import { setTimeout as sleep } from 'node:timers/promises';

/** How long to wait before the next try at a database another program holds locked. */
export interface BusyBackoff {
  /** Milliseconds before attempt `attempt` (1 = the first retry). */
  readonly delayMs: (attempt: number) => number;
  /** After this much waiting in all, the lock is reported as an error instead. */
  readonly giveUpAfterMs: number;
  /** The user is told once a wait has lasted this long (a brief overlap with another dagent is not news). */
  readonly noticeAfterMs: number;
}

/** First retry delay; it doubles up to `MAX_BUSY_DELAY_MS`. */
export const FIRST_BUSY_DELAY_MS = 20;
export const MAX_BUSY_DELAY_MS = 1_000;
/** A lock held this long is not a brief overlap with another program: the run stops with one clear line. */
export const BUSY_GIVE_UP_MS = 10 * 60_000;
export const BUSY_NOTICE_AFTER_MS = 2_000;

/** Doubling delays, capped: 20, 40, 80 … 1000 ms. Pure. */
export function busyBackoff(options: Partial<BusyBackoff> = {}): BusyBackoff {
  return {
    delayMs: options.delayMs ?? ((attempt) => Math.min(MAX_BUSY_DELAY_MS, FIRST_BUSY_DELAY_MS * 2 ** Math.max(0, attempt - 1))),
    giveUpAfterMs: options.giveUpAfterMs ?? BUSY_GIVE_UP_MS,
    noticeAfterMs: options.noticeAfterMs ?? BUSY_NOTICE_AFTER_MS,
  };
}

/**
 * True for a lock another connection holds past the busy timeout: SQLITE_BUSY itself, or a
 * locked table. Not SQLITE_BUSY_SNAPSHOT (a transaction whose snapshot is stale cannot succeed by
 * trying again) nor SQLITE_BUSY_RECOVERY variants that a retry of the whole operation must handle.
 */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_BUSY_TIMEOUT';
}

/** A lock another program holds on the store: `waiting` when dagent starts waiting it out, `resumed` when it got through. */
export interface BusyNotice {
  readonly state: 'waiting' | 'resumed';
  readonly waitedMs: number;
}

/**
 * `attempt`, tried again with `backoff`'s delays for as long as it fails on a lock (`busy`) and
 * `giveUpAfterMs` has not passed; `onBusy` is told once the wait has lasted `noticeAfterMs`, and
 * again when it got through. Any other failure, or the lock past the give-up time, is thrown.
 */
export async function waitOutLocks<T>(attempt: () => T | Promise<T>, backoff: BusyBackoff, onBusy: ((notice: BusyNotice) => void) | undefined, busy: (error: unknown) => boolean = isBusyError): Promise<T> {
  let firstBusyAt: number | undefined;
  let told = false;
  for (let tries = 1; ; tries += 1) {
    try {
      const result = await attempt();
      if (told) onBusy?.({ state: 'resumed', waitedMs: Date.now() - firstBusyAt! });
      return result;
    } catch (error) {
      firstBusyAt ??= Date.now();
      const waitedMs = Date.now() - firstBusyAt;
      if (!busy(error) || waitedMs >= backoff.giveUpAfterMs) throw error;
      if (!told && waitedMs >= backoff.noticeAfterMs) {
        told = true;
        onBusy?.({ state: 'waiting', waitedMs });
      }
      await sleep(backoff.delayMs(tries));
    }
  }
}

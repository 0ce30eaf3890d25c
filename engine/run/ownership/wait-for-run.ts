import type { Kysely } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '../../db/database.js';
import type { LeaseHolder } from './lease-holder.js';
import { RunClaimedError, claimRun, type ClaimRunOptions, type RunLease } from './run-lease.js';

export interface WaitForRunOptions extends ClaimRunOptions {
  readonly signal: AbortSignal;
  readonly pollMs?: number;
  /** Called once, with the holder the caller waits for. */
  readonly onWaiting?: (holder: LeaseHolder) => void;
}

/** Polls `claimRun` until the holder lets go (or dies), or `signal` aborts. */
export async function waitForRun(db: Kysely<Database>, runId: string, options: WaitForRunOptions): Promise<RunLease> {
  let told = false;
  for (;;) {
    try {
      return await claimRun(db, runId, options);
    } catch (error) {
      if (!(error instanceof RunClaimedError)) throw error;
      if (!told) options.onWaiting?.(error.holder);
      told = true;
    }
    await sleep(options.pollMs ?? 250, undefined, { signal: options.signal });
  }
}


import type { EventLog } from '../../session/event-log.js';
import type { EventType, SessionEvent } from '../../session/event-types.js';

/** How often a wait reads the log again, for appends of other processes that this one's listeners do not hear. */
const REREAD_INTERVAL_MS = 1_000;

/**
 * Waits on the run log until `decide` answers from the events of `types` after `afterSeq` (all
 * of them so far, in seq order): this process's appends are heard at once, others' on a re-read.
 * Rejects with the signal's reason when it aborts.
 */
export async function untilLogDecides<T extends EventType, R>(
  log: EventLog,
  query: { readonly types: readonly T[]; readonly afterSeq: number },
  decide: (events: readonly SessionEvent<T>[]) => R | undefined,
  signal: AbortSignal,
): Promise<R> {
  const wanted = new Set<string>(query.types);
  const events = new Map<number, SessionEvent<T>>();
  return new Promise<R>((resolve, reject) => {
    let settled = false;
    const finish = (): void => {
      settled = true;
      unsubscribe();
      clearInterval(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const check = (): void => {
      if (settled) return;
      const answer = decide([...events.values()].sort((a, b) => a.seq - b.seq));
      if (answer === undefined) return;
      finish();
      resolve(answer);
    };
    const add = (appended: readonly SessionEvent[]): void => {
      for (const event of appended) if (event.seq > query.afterSeq && wanted.has(event.type)) events.set(event.seq, event as SessionEvent<T>);
      check();
    };
    const reread = (): void => {
      log.read({ types: query.types, fromSeq: query.afterSeq + 1 }).then((read) => add(read as readonly SessionEvent[]), (error: unknown) => {
        if (settled) return;
        finish();
        reject(error);
      });
    };
    const onAbort = (): void => {
      if (settled) return;
      finish();
      reject(signal.reason);
    };
    const unsubscribe = log.onAppend(add);
    const timer = setInterval(reread, REREAD_INTERVAL_MS);
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    else reread();
  });
}

/** The controller's answer to one delegation (`delegation/answered` for the `work/delegated` at `delegationSeq`). */
export function awaitDelegation(log: EventLog, delegationSeq: number, signal: AbortSignal): Promise<SessionEvent<'delegation/answered'>['payload']> {
  return untilLogDecides(log, { types: ['delegation/answered'], afterSeq: delegationSeq }, (events) => events.find((event) => event.payload.delegationSeq === delegationSeq)?.payload, signal);
}

/** How a node ended, as `await_nodes` hands it to the lead. */
export interface NodeEnding {
  readonly nodeId: string;
  readonly status: 'succeeded' | 'failed' | 'skipped' | 'cancelled';
  /** The node's answer when it succeeded, else its error or reason. */
  readonly text: string;
}

const NODE_LIFE_TYPES = ['node/started', 'node/reset', 'node/succeeded', 'node/failed', 'node/skipped', 'node/cancelled'] as const;

/** The last ending of a node, unless it started again (or was reset) after it. */
function ending(events: readonly SessionEvent<(typeof NODE_LIFE_TYPES)[number]>[], nodeId: string): NodeEnding | undefined {
  const last = events.filter((event) => event.nodeId === nodeId).at(-1);
  switch (last?.type) {
    case 'node/succeeded':
      return { nodeId, status: 'succeeded', text: (last as SessionEvent<'node/succeeded'>).payload.result };
    case 'node/failed':
      return { nodeId, status: 'failed', text: (last as SessionEvent<'node/failed'>).payload.error };
    case 'node/skipped':
      return { nodeId, status: 'skipped', text: (last as SessionEvent<'node/skipped'>).payload.reason };
    case 'node/cancelled':
      return { nodeId, status: 'cancelled', text: (last as SessionEvent<'node/cancelled'>).payload.reason ?? 'cancelled' };
    default:
      return undefined;
  }
}

/** Waits until every node of `nodeIds` has ended; their endings, in the order asked. */
export function awaitNodes(log: EventLog, nodeIds: readonly string[], signal: AbortSignal): Promise<NodeEnding[]> {
  return untilLogDecides(
    log,
    { types: NODE_LIFE_TYPES, afterSeq: 0 },
    (events) => {
      const endings = nodeIds.map((nodeId) => ending(events, nodeId));
      return endings.every((found) => found !== undefined) ? (endings as NodeEnding[]) : undefined;
    },
    signal,
  );
}

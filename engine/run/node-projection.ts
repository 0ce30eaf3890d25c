import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { PreparedQuery } from '../db/prepared-query.js';
import { nodeEventDraft } from '../scheduler/node-event.js';
import type { NodeTransition } from '../scheduler/node-transition.js';
import type { EventDraft } from '../session/event-types.js';

export interface NodeTotals {
  readonly input: number;
  readonly output: number;
  readonly cacheHit: number;
  readonly reasoning: number;
  readonly costUsd: number;
}

export interface DescribedResult {
  readonly result: string;
  readonly filesChanged?: readonly string[];
}

/**
 * The events of a group of transitions. A node that becomes ready and starts in the same group
 * gets no `node/ready` event: its `node/started` says both, and the log stays one event smaller
 * per node on the hot path. A node that waits for a slot or a lock keeps its `node/ready`.
 */
export function nodeTransitionDrafts<R>(changes: readonly NodeTransition<R>[], describe: (result: R) => DescribedResult): EventDraft[] {
  const startedNow = new Set(changes.filter((change) => change.kind === 'started').map((change) => change.nodeId));
  const drafts: EventDraft[] = [];
  for (const change of changes) {
    if (change.kind === 'ready' && startedNow.has(change.nodeId)) continue;
    const draft = nodeEventDraft(change, describe);
    if (draft !== undefined) drafts.push(draft);
  }
  return drafts;
}

/**
 * Keeps the `nodes` projection in step with a group of transitions, in the caller's transaction:
 * the settled state of each node (with its attempts, start and end, and its token and cost
 * totals) on `succeeded`, `failed`, `cancelled` and `skipped`. Transient states (`ready`,
 * `running`, `retried`, `reset`) live in the log alone — a resume folds them from there — so the
 * hot path writes one row per node, not three.
 */
export async function writeNodeProjection<R>(
  db: Transaction<Database> | Kysely<Database>,
  runId: string,
  changes: readonly NodeTransition<R>[],
  context: {
    readonly at: string;
    readonly describe: (result: R) => DescribedResult;
    readonly totals?: (nodeId: string) => NodeTotals | undefined;
    /** When each running node started, filled in by `started` transitions, read when it settles. */
    readonly started?: Map<string, string>;
  },
): Promise<void> {
  for (const change of changes) {
    const key = { run_id: runId, node_id: change.nodeId, status: change.to, attempts: change.attempts, at: context.at };
    switch (change.kind) {
      case 'started':
        context.started?.set(change.nodeId, context.at);
        break;
      case 'succeeded':
      case 'failed':
      case 'cancelled': {
        const totals = context.totals?.(change.nodeId) ?? ZERO_TOTALS;
        await NODE_FINISHED.execute(db, {
          ...key,
          started_at: context.started?.get(change.nodeId) ?? null,
          result: change.kind === 'succeeded' ? context.describe(change.result).result : null,
          error: change.kind === 'failed' ? change.error : change.kind === 'cancelled' ? change.reason : null,
          input_tokens: totals.input,
          output_tokens: totals.output,
          cache_hit_tokens: totals.cacheHit,
          reasoning_tokens: totals.reasoning,
          cost_usd: totals.costUsd,
        });
        break;
      }
      case 'skipped':
        await NODE_SKIPPED.execute(db, { ...key, error: change.reason });
        break;
      default:
        break;
    }
  }
}

const ZERO_TOTALS: NodeTotals = { input: 0, output: 0, cacheHit: 0, reasoning: 0, costUsd: 0 };

type Key = 'run_id' | 'node_id' | 'status' | 'attempts' | 'at';

const NODE_FINISHED = new PreparedQuery<Key | 'started_at' | 'result' | 'error' | 'input_tokens' | 'output_tokens' | 'cache_hit_tokens' | 'reasoning_tokens' | 'cost_usd'>((db, param) =>
  db
    .updateTable('nodes')
    .set({
      status: param('status'),
      attempts: sql<number>`cast(${param('attempts')} as integer)`,
      started_at: param('started_at'),
      finished_at: param('at'),
      result: param('result'),
      error: param('error'),
      input_tokens: sql<number>`cast(${param('input_tokens')} as integer)`,
      output_tokens: sql<number>`cast(${param('output_tokens')} as integer)`,
      cache_hit_tokens: sql<number>`cast(${param('cache_hit_tokens')} as integer)`,
      reasoning_tokens: sql<number>`cast(${param('reasoning_tokens')} as integer)`,
      cost_usd: sql<number>`cast(${param('cost_usd')} as double precision)`,
    })
    .where('run_id', '=', param('run_id'))
    .where('node_id', '=', param('node_id')),
);

const NODE_SKIPPED = new PreparedQuery<Key | 'error'>((db, param) =>
  db
    .updateTable('nodes')
    .set({ status: param('status'), attempts: sql<number>`cast(${param('attempts')} as integer)`, error: param('error') })
    .where('run_id', '=', param('run_id'))
    .where('node_id', '=', param('node_id')),
);

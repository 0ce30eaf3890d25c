import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import type { Database, RunsTable } from '../db/database.js';
import { runFromRow, type RunRecord } from '../run/storage/run-store.js';
import { NODE_TRANSITION_EVENT_TYPES } from '../run/storage/node-event.js';
import { isUniqueViolation, MAX_SEQ_CONFLICT_RETRIES, type PendingRow } from '../session/event-inserts.js';
import type { EventDraft } from '../session/event-types.js';
import type { EventLog, StoredThrough } from '../session/event-log.js';
import { takeSeqs } from '../session/one-statement-append.js';
import type { NodeJob } from './job-queue.js';
import { freeClaimsUpsert, type Claimant } from './node-claim.js';
import { NODE_OUTCOME_EVENT_TYPES } from './pending-results.js';

/** What one claim-and-record statement came to. */
export interface RecordedRound {
  /** The run as the statement saw it; undefined when there is no such run. */
  readonly run: RunRecord | undefined;
  /** The nodes the statement claimed, with their tokens; a node a live worker holds is absent. */
  readonly tokens: ReadonlyMap<string, number>;
  /** The nodes whose `attempt/claimed` it stored: those claimed for the first time (token 1) whose job's attempt is current, while the run runs. */
  readonly recorded: ReadonlySet<string>;
  /** `performance.now()` before the statement: its claims last their TTL from then, by this process's clock. */
  readonly claimedAt: number;
}

const SEEN_TYPES = [...NODE_TRANSITION_EVENT_TYPES, 'attempt/finished'] as const;

/**
 * PostgreSQL: a worker's claim round in one statement — the claims of the free nodes (the upsert
 * `claimNodes` runs, `freeClaimsUpsert`), the checks (the run running, each job's attempt current: its node
 * started for that attempt and no outcome committed for it) and the `attempt/claimed` of every
 * node claimed for the first time whose check passed, through `log` (`draft` gives a node's event
 * with token 1). The checks read the store as the statement began, and a node's first claim is the
 * one they hold for: no process held the node before it, so none could have committed an outcome
 * (the same reasoning as checks sent beside the claim). A node claimed again, not yet started, or
 * not current is claimed or not and left to the caller, nothing recorded for it.
 */
export async function claimAndRecord(
  log: EventLog,
  jobs: readonly NodeJob[],
  claimant: Claimant,
  ttlMs: number,
  draft: (job: NodeJob) => EventDraft,
): Promise<RecordedRound> {
  const runId = log.runId;
  const claimedAt = performance.now();
  let outcome: { run: RunRecord | undefined; tokens: Map<string, number> } | undefined;
  const stored = await log.appendThrough(
    jobs.map(draft),
    async (rows) => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const [row] = (await roundStatement(log.db, runId, jobs, rows, claimant, ttlMs).execute(log.db)).rows;
          outcome = { run: row?.run === null || row?.run === undefined ? undefined : runFromRow(row.run), tokens: new Map((row?.claimed ?? []).map((claim) => [claim.node_id, Number(claim.token)])) };
          return (row?.inserted ?? []).map((inserted): StoredThrough => ({ index: inserted.ord, seq: Number(inserted.seq), payload: inserted.payload }));
        } catch (error) {
          // Another writer of the run took the seq first: the whole statement (its claims too) went back.
          if (attempt >= MAX_SEQ_CONFLICT_RETRIES || !isUniqueViolation(error)) throw error;
        }
      }
    },
  );
  return { run: outcome!.run, tokens: outcome!.tokens, recorded: new Set(stored.map((event) => event.nodeId!)), claimedAt };
}

interface RoundRow {
  readonly run: RunsTable | null;
  readonly claimed: readonly { readonly node_id: string; readonly token: number | string }[];
  readonly inserted: readonly { readonly ord: number; readonly seq: number | string; readonly payload: string }[];
}

function roundStatement(db: Kysely<Database>, runId: string, jobs: readonly NodeJob[], rows: readonly PendingRow[], claimant: Claimant, ttlMs: number) {
  // In node order, as `claimNodes` locks them: two workers taking overlapping sets never deadlock.
  // Built without the handle's plugins: they see it once, as part of the statement that carries it.
  const claims = freeClaimsUpsert(db.withoutPlugins(), runId, [...new Set(jobs.map((job) => job.nodeId))].sort(), claimant, ttlMs);
  const values = sql.join(
    rows.map(
      (row, index) =>
        sql`(${index}::integer, ${row.node_id}::text, ${jobs[index]!.attempt}::integer, ${row.turn}::integer, ${row.step}::integer, ${row.type}::text, ${row.payload}::text, ${row.created_at}::text, ${row.version}::integer)`,
    ),
  );
  const typeList = (types: readonly string[]) => sql.join(types.map((type) => sql`${type}`));
  // `seen`: the nodes' transitions and outcomes as the statement began. A job is current when its
  // node's last transition is its attempt's start, no later attempt started, and no outcome was
  // committed since the scheduler's last settled one (what `currentAttempts` folds in JavaScript).
  return sql<RoundRow>`with jobs (ord, node_id, attempt, turn, step, type, payload, created_at, version) as (values ${values}),
    claimed as (${claims}),
    seen as (
      select node_id, seq, type, (payload::json ->> 'attempt')::integer as attempt from events
      where run_id = ${runId} and node_id in (select node_id from jobs) and type in (${typeList(SEEN_TYPES)})),
    current_jobs as (
      select j.* from jobs j
      where coalesce((select s.type = 'node/started' and s.attempt = j.attempt from seen s where s.node_id = j.node_id and s.type <> 'attempt/finished' order by s.seq desc limit 1), false)
        and not exists (select 1 from seen s where s.node_id = j.node_id and s.type = 'node/started' and s.attempt > j.attempt)
        and not exists (
          select 1 from seen s where s.node_id = j.node_id and s.type = 'attempt/finished'
            and s.seq > coalesce((select max(o.seq) from seen o where o.node_id = j.node_id and o.type in (${typeList(NODE_OUTCOME_EVENT_TYPES)})), 0))),
    going as (
      select c.*, row_number() over (order by c.ord) as n from current_jobs c join claimed k on k.node_id = c.node_id and k.token = 1
      where exists (select 1 from runs where id = ${runId} and status = 'running')),
    next as (${takeSeqs(runId, sql`(select count(*) from going)`, sql`exists (select 1 from going)`)}),
    inserted as (
      insert into events (run_id, seq, node_id, turn, step, type, payload, surface_op, source_event_seqs, created_at, version)
      select ${runId}::text, next.seq + g.n, g.node_id, g.turn, g.step, g.type, g.payload, null, null, g.created_at, g.version from going g cross join next
      returning seq, node_id, payload)
    select (select row_to_json(r) from runs r where r.id = ${runId}) as run,
      (select coalesce(json_agg(json_build_object('node_id', node_id, 'token', token)), '[]'::json) from claimed) as claimed,
      (select coalesce(json_agg(json_build_object('ord', g.ord, 'seq', i.seq, 'payload', i.payload)), '[]'::json) from inserted i join going g on g.node_id = i.node_id) as inserted`;
}

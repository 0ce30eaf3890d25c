import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/database.js';
import { DagentError, UnknownNodeError } from '../../errors.js';
import type { LintFinding } from '../../plan/lint-finding.js';
import { diffPlans, type PlanDiff } from '../../plan/plan-diff.js';
import { planHash } from '../../plan/plan-hash.js';
import type { Plan } from '../../plan/plan-schema.js';
import { isPlanStatus, transitionPlan, type PlanStatus } from '../../plan/plan-status.js';
import type { AppendEffects, EventLog } from '../../session/event-log.js';
import { runLog } from '../../session/run-log.js';
import { ensureNodeRows } from './node-projection.js';
import { transitionRun, type RunStatus } from './run-status.js';
import { getRun, type RunRecord } from './run-store.js';
import { statusWords } from './status-words.js';

export interface StoredPlan {
  readonly runId: string;
  readonly version: number;
  readonly plan: Plan;
  readonly status: PlanStatus;
  readonly hash: string;
  readonly reason: string | null;
  readonly createdAt: string;
  readonly approvedAt: string | null;
}

export class NoPlanError extends DagentError {
  constructor(readonly runId: string) {
    super(`run ${runId} has no plan yet`);
  }
}

export class PlanNotApprovedError extends DagentError {
  constructor(readonly runId: string, readonly version: number, status: PlanStatus) {
    super(
      status === 'rejected'
        ? `plan v${version} of run ${runId} was rejected: make a new version with \`dagent edit ${runId}\` or \`dagent import ${runId} FILE\`, then \`dagent approve ${runId}\``
        : `plan v${version} of run ${runId} is ${status.replace('_', ' ')}: review it with \`dagent show ${runId}\`, then \`dagent approve ${runId}\` (\`dagent plan --yes\` approves a new plan as it is made)`,
    );
  }
}

export class PlanChangedError extends DagentError {
  /**
   * `pinnedVersion`/`currentVersion`: when `--approved` names the hash of another version of the run
   * (a review of an older plan), the message says which, and how to run the plan approved now.
   */
  constructor(readonly runId: string, readonly approvedHash: string, readonly currentHash: string, pinnedVersion?: number, currentVersion?: number) {
    super(
      currentVersion === undefined
        ? `the plan of run ${runId} is not the approved one: --approved ${approvedHash || '(empty)'}, current plan hash ${currentHash}; review and approve it again`
        : `--approved ${approvedHash || '(empty)'} is ${pinnedVersion === undefined ? `the hash of no plan of run ${runId}` : `plan v${pinnedVersion}'s hash`}, and the approved plan is v${currentVersion} (hash ${currentHash}): review it with \`dagent show ${runId}\`, then \`dagent run ${runId} --approved ${currentHash}\``,
    );
  }
}

/** The version of the run's plan whose hash begins with `pinned`, if one does. */
async function versionOfHash(db: Kysely<Database>, runId: string, pinned: string): Promise<number | undefined> {
  if (pinned.length < MIN_APPROVED_HASH_CHARS) return undefined;
  const rows = await db.selectFrom('plans').select(['version', 'hash']).where('run_id', '=', runId).orderBy('version', 'desc').execute();
  const found = rows.find((row) => row.hash.startsWith(pinned.toLowerCase()));
  return found === undefined ? undefined : Number(found.version);
}

/** Shortest `--approved` prefix accepted: a hash that short cannot pin a plan. */
export const MIN_APPROVED_HASH_CHARS = 8;

/** The plan version the run is on; `run`: its id, or its row when the caller has read it already (not read again). */
export async function currentPlan(db: Kysely<Database>, runOrId: string | RunRecord): Promise<StoredPlan> {
  const run = typeof runOrId === 'string' ? await getRun(db, runOrId) : runOrId;
  if (run.planVersion === null) throw new NoPlanError(run.id);
  return planVersion(db, run.id, run.planVersion);
}

export async function planVersion(db: Kysely<Database>, runId: string, version: number): Promise<StoredPlan> {
  const row = await db.selectFrom('plans').selectAll().where('run_id', '=', runId).where('version', '=', version).executeTakeFirst();
  if (row === undefined) {
    // Which versions there are: the message is one a user acts on (`--plan-version N`).
    const versions = await db.selectFrom('plans').select('version').where('run_id', '=', runId).orderBy('version').execute();
    const known = versions.length === 0 ? 'it has no plan yet' : `its plans: ${versions.map((stored) => `v${Number(stored.version)}`).join(', ')}`;
    throw new DagentError(`run ${runId} has no plan v${version} (${known})`);
  }
  return {
    runId,
    version: Number(row.version),
    plan: JSON.parse(row.body) as Plan,
    status: isPlanStatus(row.status) ? row.status : 'draft',
    hash: row.hash,
    reason: row.reason,
    createdAt: row.created_at,
    approvedAt: row.approved_at,
  };
}

export async function listPlanVersions(db: Kysely<Database>, runId: string): Promise<StoredPlan[]> {
  const rows = await db.selectFrom('plans').select('version').where('run_id', '=', runId).orderBy('version').execute();
  return Promise.all(rows.map((row) => planVersion(db, runId, Number(row.version))));
}

/**
 * Throws `UnknownNodeError` unless the run has the node: in its log (a node that ran, the planner,
 * a react run's agent) or in any of its plan versions (a node that has not run yet has no events).
 */
export async function assertRunHasNode(db: Kysely<Database>, runId: string, nodeId: string): Promise<void> {
  const logged = await db.selectFrom('events').select('seq').where('run_id', '=', runId).where('node_id', '=', nodeId).limit(1).executeTakeFirst();
  if (logged !== undefined) return;
  if ((await listPlanVersions(db, runId)).some((stored) => stored.plan.nodes.some((node) => node.id === nodeId))) return;
  throw new UnknownNodeError(runId, nodeId);
}

export interface SavePlanInput {
  readonly plan: Plan;
  /** Why this version exists: "planned", "edited", "imported from plan.json", "replan: …". */
  readonly reason: string;
  /** The status of the new version; `approved` for replans that need no review. */
  readonly status?: 'awaiting_approval' | 'approved';
  /** Where the run goes next; defaults follow the plan status. */
  readonly runStatus?: RunStatus;
  /** The run's log to write through (its listeners see the plan events); a new one by default. */
  readonly log?: EventLog;
  /** The version's plan lint findings, recorded in its `plan/created` or `plan/amended` event. */
  readonly lint?: readonly LintFinding[];
}

export interface SavedPlan {
  readonly stored: StoredPlan;
  /** Against the previous version; undefined for the first one. */
  readonly diff?: PlanDiff;
}

/**
 * Stores a new plan version: the previous one is superseded, the run points at the new one,
 * and `plan/created` (first version) or `plan/amended` (with its diff) is written in the same
 * transaction.
 */
export async function savePlan(db: Kysely<Database>, runId: string, input: SavePlanInput): Promise<SavedPlan> {
  const run = await getRun(db, runId);
  const previous = run.planVersion === null ? undefined : await planVersion(db, run.id, run.planVersion);
  const version = (previous?.version ?? 0) + 1;
  const status = input.status ?? 'awaiting_approval';
  const hash = planHash(input.plan);
  const now = new Date().toISOString();
  const diff = previous === undefined ? undefined : diffPlans(previous.plan, input.plan);
  const nextRunStatus = input.runStatus ?? (status === 'approved' ? (run.status === 'running' ? 'running' : 'approved') : 'awaiting_approval');
  const log = input.log ?? runLog(db, run.id);
  const lint = input.lint === undefined ? {} : { lint: input.lint.map((finding) => ({ ...finding })) };
  const draft =
    previous === undefined
      ? { type: 'plan/created' as const, payload: { version, plan: input.plan, hash, reason: input.reason, ...lint } }
      : { type: 'plan/amended' as const, payload: { version, reason: input.reason, diff, hash, plan: input.plan, ...lint } };
  const drafts = status === 'approved' ? [draft, { type: 'plan/approved' as const, payload: { version, hash } }] : [draft];
  await log.appendMany(drafts, {
    effects: async (transaction) => {
      if (previous !== undefined && previous.status !== 'superseded' && previous.status !== 'rejected') {
        await setPlanStatus(transaction, run.id, previous.version, transitionPlan(previous.status, 'superseded'));
      }
      await transaction
        .insertInto('plans')
        .values({ run_id: run.id, version, body: JSON.stringify(input.plan), status, reason: input.reason, hash, created_at: now, approved_at: status === 'approved' ? now : null })
        .execute();
      // A run that stays as it is (approved, a new approved version) takes the new version only.
      await setRunStatus(transaction, run.id, nextRunStatus === run.status ? run.status : transitionRun(run.status, nextRunStatus), { plan_version: version });
    },
  });
  return { stored: await planVersion(db, run.id, version), ...(diff === undefined ? {} : { diff }) };
}

/** Approves the run's current plan version, recording its hash. */
/** `allowedLint`: the codes of lint errors the reviewer let through (`--allow-lint`), recorded with the approval. */
export async function approvePlan(db: Kysely<Database>, runId: string, options: { readonly allowedLint?: readonly string[] } = {}): Promise<StoredPlan> {
  const run = await getRun(db, runId);
  const stored = await currentPlan(db, run.id);
  if (stored.status === 'approved') return stored;
  if (stored.status === 'rejected') throw new PlanNotApprovedError(run.id, stored.version, stored.status);
  const status = transitionPlan(stored.status, 'approved');
  const allowedLint = options.allowedLint === undefined || options.allowedLint.length === 0 ? {} : { allowedLint: [...options.allowedLint] };
  await runLog(db, run.id).append(
    { type: 'plan/approved', payload: { version: stored.version, hash: stored.hash, ...allowedLint } },
    {
      effects: async (transaction) => {
        await setPlanStatus(transaction, run.id, stored.version, status, { approved_at: new Date().toISOString() });
        await setRunStatus(transaction, run.id, transitionRun(run.status, 'approved'));
      },
    },
  );
  return planVersion(db, run.id, stored.version);
}

export async function rejectPlan(db: Kysely<Database>, runId: string, reason?: string): Promise<StoredPlan> {
  const run = await getRun(db, runId);
  const stored = await currentPlan(db, run.id);
  assertRejectable(run, stored);
  const status = transitionPlan(stored.status, 'rejected');
  await runLog(db, run.id).append(
    { type: 'plan/rejected', payload: { version: stored.version, ...(reason === undefined ? {} : { reason }) } },
    {
      effects: async (transaction) => {
        await setPlanStatus(transaction, run.id, stored.version, status);
        await setRunStatus(transaction, run.id, transitionRun(run.status, 'rejected'), { finished_at: new Date().toISOString() });
      },
    },
  );
  return planVersion(db, run.id, stored.version);
}

/** A rejection is of a plan under review, or approved and not run yet; anything else is said in words. */
function assertRejectable(run: RunRecord, stored: StoredPlan): void {
  const plan = `plan v${stored.version} of run ${run.id}`;
  if (stored.status === 'rejected') throw new DagentError(`${plan} is already rejected`);
  if (run.status === 'planning' || run.status === 'running') throw new DagentError(`run ${run.id} is ${run.status === 'planning' ? 'being planned' : 'running'}: \`dagent cancel ${run.id}\` stops it (it stays resumable)`);
  if (run.status !== 'awaiting_approval' && run.status !== 'approved') {
    throw new DagentError(`run ${run.id} ran plan v${stored.version} and ${statusWords(run.status).replace(/^it /, '')}: there is no plan under review to reject (\`dagent revert ${run.id}\` undoes its change)`);
  }
}

/**
 * The plan a run may execute: approved, and — when the caller pins a hash (`--approved HASH`) —
 * still exactly the plan that was approved.
 */
export async function executablePlan(db: Kysely<Database>, runOrId: string | RunRecord, options: { approvedHash?: string } = {}): Promise<StoredPlan> {
  const stored = await currentPlan(db, runOrId);
  if (stored.status !== 'approved') throw new PlanNotApprovedError(stored.runId, stored.version, stored.status);
  const pinned = options.approvedHash;
  if (pinned !== undefined && (pinned.length < MIN_APPROVED_HASH_CHARS || !stored.hash.startsWith(pinned.toLowerCase()))) {
    throw new PlanChangedError(stored.runId, pinned, stored.hash, await versionOfHash(db, stored.runId, pinned), stored.version);
  }
  if (planHash(stored.plan) !== stored.hash) throw new PlanChangedError(stored.runId, stored.hash, planHash(stored.plan));
  return stored;
}

async function setPlanStatus(db: Transaction<Database>, runId: string, version: number, status: PlanStatus, extra: { approved_at?: string } = {}): Promise<void> {
  await db.updateTable('plans').set({ status, ...extra }).where('run_id', '=', runId).where('version', '=', version).execute();
}

/**
 * What `run/started` writes in its transaction: the run's status, changed only from the status its
 * caller read (`from`; another process that changed the run since wins), and a `nodes` row for each
 * node of the plan, every row on the plan's version.
 */
export function runStartEffects(runId: string, to: RunStatus, from: RunStatus, planVersion: number, nodes: readonly { readonly id: string }[]): AppendEffects {
  return async (transaction) => {
    await setRunStatus(transaction, runId, to, { finished_at: null, from });
    await ensureNodeRows(transaction, runId, planVersion, nodes);
  };
}

export async function setRunStatus(
  db: Kysely<Database> | Transaction<Database>,
  runId: string,
  status: RunStatus,
  extra: { plan_version?: number; finished_at?: string | null; from?: RunStatus } = {},
): Promise<void> {
  const { from, ...columns } = extra;
  let update = db.updateTable('runs').set({ status, updated_at: new Date().toISOString(), ...columns }).where('id', '=', runId);
  if (from !== undefined) update = update.where('status', '=', from);
  const result = await update.executeTakeFirst();
  // `from`: the status the caller read; another process that changed the run since wins.
  if (from !== undefined && Number(result.numUpdatedRows) === 0) throw new DagentError(`run ${runId} changed since it was read (it is no longer ${from}); try again`, { exitCode: 2 });
}

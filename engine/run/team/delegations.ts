import type { Kysely } from 'kysely';
import type { Database } from '../../db/database.js';
import { errorMessage } from '../../errors.js';
import { checkPlan } from '../../plan/check-plan.js';
import type { PlanLinter } from '../../plan/plan-linter.js';
import type { PlanRules } from '../../plan/plan-rules.js';
import type { Plan, PlanNode } from '../../plan/plan-schema.js';
import type { Amendment, ScheduleSnapshot } from '../../scheduler/schedule-options.js';
import type { ScheduleHandle } from '../../scheduler/scheduler.js';
import type { EventLog } from '../../session/event-log.js';
import type { SessionEvent } from '../../session/event-types.js';
import { planLintFindings } from '../../plan/plan-lint-findings.js';
import { savePlan } from '../storage/plan-store.js';
import { delegationVerdict } from './delegation-verdict.js';
import { TEAM_TOOL_NAMES, type TeamLimits } from './team-limits.js';

export interface DelegationsContext {
  readonly db: Kysely<Database>;
  readonly log: EventLog;
  readonly runId: string;
  readonly limits: TeamLimits;
  /** The rules the plan with a delegated node is checked by (the run's isolation). */
  readonly rules?: PlanRules | undefined;
  readonly linter?: PlanLinter;
  /** A kind's default tools (a node that may delegate in turn gets them and the team tools). */
  readonly defaultTools: (kind: PlanNode['kind']) => readonly string[] | undefined;
  readonly plan: () => Plan;
  /** Makes the new version the one the run goes on with (node rows, transitions). */
  readonly adopt: (plan: Plan, version: number) => Promise<void>;
}

/**
 * Team mode's side of the run controller: each `work/delegated` becomes a new plan version with
 * the delegated node (`plan/amended`, with its diff), without asking the planner, checked like any
 * plan and scheduled at once; or a refusal. Either way the delegator hears it as a
 * `delegation/answered`. A delegation heard twice (its own append, and the follower) is handled
 * once; a delegation repeated after a resume finds its node in the plan and adds nothing.
 */
export class Delegations {
  readonly #context: DelegationsContext;
  readonly #heard = new Set<number>();

  constructor(context: DelegationsContext) {
    this.#context = context;
  }

  /** Amends the schedule for one delegation (tracked in `amendments` until it is answered). */
  hear(event: SessionEvent, handle: ScheduleHandle<unknown> | undefined, amendments: Set<Promise<unknown>>): void {
    if (event.type !== 'work/delegated' || handle === undefined || this.#heard.has(event.seq)) return;
    this.#heard.add(event.seq);
    const delegated = event as SessionEvent<'work/delegated'>;
    const amending = handle
      .amend((snapshot, signal) => this.#amend(delegated, snapshot, signal))
      .catch((error: unknown) => this.#answer(delegated, { outcome: 'refused', reason: errorMessage(error) }))
      .catch(() => undefined);
    amendments.add(amending);
    void amending.finally(() => amendments.delete(amending));
  }

  async #amend(event: SessionEvent<'work/delegated'>, snapshot: ScheduleSnapshot, signal: AbortSignal): Promise<Amendment | undefined> {
    const { db, log, runId } = this.#context;
    const plan = this.#context.plan();
    const verdict = delegationVerdict(event, { nodes: plan.nodes, statuses: snapshot.statuses, delegatedBy: await delegatedBy(log), limits: this.#context.limits });
    if (verdict.kind === 'refuse') return void (await this.#answer(event, { outcome: 'refused', reason: verdict.reason }));
    if (verdict.kind === 'present') return void (await this.#answer(event, { outcome: 'added', planVersion: (await log.read({ types: ['plan/amended'] })).at(-1)?.payload.version }));
    const mayDelegate = verdict.depth < this.#context.limits.maxDepth;
    const node = mayDelegate ? { ...verdict.node, tools: [...(this.#context.defaultTools(verdict.node.kind) ?? []), ...TEAM_TOOL_NAMES] } : verdict.node;
    const check = checkPlan({ ...plan, nodes: [...plan.nodes, node] }, this.#context.rules);
    if (!check.ok) return void (await this.#answer(event, { outcome: 'refused', reason: check.issues.map((issue) => issue.message).join('; ') }));
    const lint = await planLintFindings(this.#context.linter, check.plan, signal);
    const reason = `node ${event.nodeId ?? 'run'} delegated "${node.title}" (${node.id})`;
    const saved = await savePlan(db, runId, { plan: check.plan, reason, status: 'approved', runStatus: 'running', log, ...(this.#context.linter === undefined ? {} : { lint }) });
    await this.#context.adopt(check.plan, saved.stored.version);
    await this.#answer(event, { outcome: 'added', planVersion: saved.stored.version });
    return { nodes: check.plan.nodes, restart: [] };
  }

  async #answer(event: SessionEvent<'work/delegated'>, answer: { outcome: 'added' | 'refused'; planVersion?: number | undefined; reason?: string }): Promise<void> {
    const { planVersion, reason, outcome } = answer;
    await this.#context.log.append({
      type: 'delegation/answered',
      payload: { delegationSeq: event.seq, nodeId: event.payload.id, outcome, ...(planVersion === undefined ? {} : { planVersion }), ...(reason === undefined ? {} : { reason }) },
    });
  }
}

/** Each node a delegation added, and the node that delegated it, read from the log. */
export async function delegatedBy(log: EventLog): Promise<Map<string, string>> {
  const events = await log.read({ types: ['work/delegated', 'delegation/answered'] });
  const delegators = new Map<number, string | null>();
  const added = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'work/delegated') delegators.set(event.seq, event.nodeId);
    else {
      const answer = (event as SessionEvent<'delegation/answered'>).payload;
      const delegator = delegators.get(answer.delegationSeq);
      if (answer.outcome === 'added' && delegator != null && !added.has(answer.nodeId)) added.set(answer.nodeId, delegator);
    }
  }
  return added;
}

import { nodeKind } from '../../plan/node-kinds.js';
import { replanDecision } from '../../plan/replan-decision.js';
import type { Plan } from '../../plan/plan-schema.js';
import type { ReplanTrigger } from '../../plan/planner.js';
import type { NodeStatus } from '../../scheduler/node-status.js';
import type { RunSettings } from './run-options.js';

export interface ReplanVerdictInput {
  readonly trigger: ReplanTrigger;
  /** Every node of the schedule's snapshot, with its status. */
  readonly statuses: ReadonlyMap<string, NodeStatus>;
  readonly replansSoFar: number;
  readonly settings: Pick<RunSettings, 'replanThreshold' | 'maxReplans'>;
  readonly hasPlanner: boolean;
  /** The trigger is a merge conflict: whatever the progress, nodes are appended (the rest of the plan stands). */
  readonly conflict?: boolean;
}

/**
 * What to do about a trigger; `progress`: the share of the snapshot's nodes that succeeded, 0–1 (as `replan/started` records it).
 * `stand`: the failure stands and no replan starts (nothing is recorded for it); `give-up`: a replan was due but the limit is reached.
 */
export type ReplanVerdict =
  | { readonly kind: 'stand'; readonly progress: number; readonly reason: string }
  | { readonly kind: 'give-up'; readonly progress: number; readonly reason: string }
  | {
      readonly kind: 'replan';
      readonly mode: 'full' | 'append';
      readonly progress: number;
      /** Nodes the new version must keep as they are: succeeded or running. */
      readonly frozen: ReadonlySet<string>;
      readonly completed: ReadonlySet<string>;
      /** The new plan version's reason. */
      readonly reason: string;
    };

/**
 * The replanning rules for one trigger (SPEC §2.5): give up past the limit, else a full replan below
 * the progress threshold and an append above it — an append also when no planner could plan in
 * full (missed work still gets its node). Succeeded and running nodes are frozen. A failure that
 * waits for a human's approval stands: a replan cannot give an approval no one was there to give,
 * and would pay a planner to work around a decision that is the human's.
 */
export function replanVerdict(input: ReplanVerdictInput): ReplanVerdict {
  const { trigger, statuses, settings } = input;
  const total = statuses.size;
  const succeeded = [...statuses.values()].filter((status) => status === 'succeeded').length;
  const progress = total === 0 ? 0 : succeeded / total;
  if (trigger.kind === 'failure' && trigger.waitsFor === 'human-approval') return { kind: 'stand', progress, reason: `${trigger.nodeId} waits for a human's approval` };
  const rule = replanDecision({ succeeded, total, replansSoFar: input.replansSoFar, threshold: settings.replanThreshold, maxReplans: settings.maxReplans });
  if (rule === 'give-up') return { kind: 'give-up', progress, reason: `the limit of ${settings.maxReplans} replans is reached` };
  const mode = input.conflict === true || (rule === 'full' && !input.hasPlanner) ? 'append' : rule;
  const idsWith = (wanted: readonly NodeStatus[]): Set<string> => new Set([...statuses].filter(([, status]) => wanted.includes(status)).map(([id]) => id));
  const reason = input.conflict === true ? `replan (${mode}) after ${trigger.nodeId}'s merge conflict` : trigger.kind === 'failure' ? `replan (${mode}) after ${trigger.nodeId} failed: ${firstLine(trigger.error)}` : `replan (${mode}): ${trigger.nodeId} reported missed work: ${trigger.title}`;
  return { kind: 'replan', mode, progress, frozen: idsWith(['succeeded', 'running']), completed: idsWith(['succeeded']), reason };
}

export interface ReviewInput {
  readonly settings: Pick<RunSettings, 'reviewReplans' | 'reviewCommandChanges'>;
  /** Command nodes the new version adds or changes (`changedCommandNodes`). */
  readonly newCommands: readonly string[];
  /** Messages of the new version's lint errors. */
  readonly lintErrors: readonly string[];
}

/**
 * Whether a replanned version waits for review: `undefined` when it runs at once, else why the run
 * pauses, given the version's number (stored only once this is decided).
 */
export function reviewAfterReplan(input: ReviewInput): ((version: number) => string) | undefined {
  const { settings, newCommands, lintErrors } = input;
  const review = settings.reviewReplans || (settings.reviewCommandChanges && newCommands.length > 0) || lintErrors.length > 0;
  if (!review) return undefined;
  if (newCommands.length > 0 && !settings.reviewReplans) {
    return (version) => `plan v${version} waits for approval: the replan added or changed command nodes (${newCommands.join(', ')}), which the approved plan did not cover`;
  }
  const because = lintErrors.length > 0 ? ` (lint: ${lintErrors.join('; ')})` : '';
  return (version) => `plan v${version} waits for review after a replan${because}`;
}

/**
 * Command nodes of `next` that `current` does not have with the same command: what a new approval
 * must cover. A new node running exactly a command the current plan already runs (a conflicting
 * command node made again on the merged result) is covered by the approval of that command.
 */
export function changedCommandNodes(current: Plan, next: Plan): string[] {
  const before = new Map(current.nodes.map((node) => [node.id, node]));
  const approved = new Set(current.nodes.filter((node) => node.command !== undefined).map((node) => `${node.kind}\0${node.command}`));
  return next.nodes
    .filter((node) => nodeKind(node.kind).needsCommand || node.command !== undefined)
    .filter((node) => {
      const old = before.get(node.id);
      if (old === undefined) return node.command === undefined || !approved.has(`${node.kind}\0${node.command}`);
      return old.kind !== node.kind || old.command !== node.command;
    })
    .map((node) => node.id);
}

export function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

import type { ApprovalPolicy } from '../engine/index.js';
import type { Assessment, ToolRisk } from './define-tool.js';

/** What to do with one call: run it, ask a human first, or refuse it outright. */
export type ApprovalVerdict =
  | { readonly action: 'run'; readonly reason: string; readonly by?: 'plan' }
  | { readonly action: 'ask'; readonly policy: Exclude<ApprovalPolicy, 'auto'>; readonly reason: string; readonly explicit?: boolean }
  | { readonly action: 'refuse'; readonly reason: string };

export interface ApprovalInput {
  /** The tool's policy; its risk already chose the default (`approvalPolicyFor`). */
  readonly policy: ApprovalPolicy;
  /** The tool's own judgement of this call (the command checker's class for run_command). */
  readonly assessment?: Assessment;
  /** A human answered `always` for this tool earlier in the run. */
  readonly alwaysApproved: boolean;
  /** The approved plan declares this call: an edit inside the node's `writes`, or the command node's own command. */
  readonly grantedByPlan?: boolean;
}

/**
 * SPEC §4.1 as a pure function, over the policy (from the tool's risk and the settings) and the
 * tool's assessment of the call. In order:
 * - dangerous calls are refused under every policy, `auto` included;
 * - a call that reaches a remote (`git push`) is asked explicitly under every policy: neither
 *   `auto`, nor an `always` answer, nor the approved plan covers it;
 * - under `auto`, a call that would run without the OS sandbox is refused (the reason says how
 *   to get the sandbox, or to pass `--no-sandbox`);
 * - what the approved plan declares runs (recorded as granted by the plan);
 * - `auto` runs the rest; an earlier `always` answer runs them too; `suggest` lets calls the
 *   tool judged safe (read-only commands) run without asking; everything else asks.
 */
export function evaluateApproval(input: ApprovalInput): ApprovalVerdict {
  const { policy, assessment } = input;
  if (assessment?.level === 'dangerous') return { action: 'refuse', reason: assessment.reason ?? 'the operation is dangerous' };
  if (assessment?.remote !== undefined) {
    return { action: 'ask', policy: policy === 'auto' ? 'never' : policy, reason: `${assessment.remote}: reaching a remote always needs an explicit approval`, explicit: true };
  }
  if (policy === 'auto' && assessment?.unconfined !== undefined) return { action: 'refuse', reason: assessment.unconfined };
  if (input.grantedByPlan === true) return { action: 'run', reason: 'declared in the approved plan', by: 'plan' };
  if (policy === 'auto') return { action: 'run', reason: 'approval policy auto' };
  if (input.alwaysApproved) return { action: 'run', reason: 'approved for the rest of this run' };
  if (policy === 'suggest' && assessment?.level === 'safe') return { action: 'run', reason: assessment.reason ?? 'judged safe' };
  return { action: 'ask', policy, reason: assessment?.reason ?? `approval policy ${policy}` };
}

export interface ApprovalSettings {
  /** The policy for tools that change things (write, command, network); `suggest` when absent. */
  readonly approval?: ApprovalPolicy;
  /** Per tool name; wins over `approval` and over the read default. */
  readonly toolApproval?: Readonly<Record<string, ApprovalPolicy>>;
}

/** The policy that applies to a tool: its own setting, `auto` for reads, else the general one. */
export function approvalPolicyFor(tool: { readonly name: string; readonly risk: ToolRisk }, settings: ApprovalSettings): ApprovalPolicy {
  const own = settings.toolApproval?.[tool.name];
  if (own !== undefined) return own;
  if (tool.risk === 'read') return 'auto';
  return settings.approval ?? 'suggest';
}

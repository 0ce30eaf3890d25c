import type { ApprovalPolicy } from '../engine/index.js';
import type { Assessment, ToolRisk } from './define-tool.js';

/** What to do with one call: run it, ask a human first, or refuse it outright. */
export type ApprovalVerdict =
  | { readonly action: 'run'; readonly reason: string }
  | { readonly action: 'ask'; readonly policy: Exclude<ApprovalPolicy, 'auto'>; readonly reason: string }
  | { readonly action: 'refuse'; readonly reason: string };

export interface ApprovalInput {
  /** The tool's policy; its risk already chose the default (`approvalPolicyFor`). */
  readonly policy: ApprovalPolicy;
  /** The tool's own judgement of this call (the command checker's class for run_command). */
  readonly assessment?: Assessment;
  /** A human answered `always` for this tool earlier in the run. */
  readonly alwaysApproved: boolean;
}

/**
 * SPEC §4.1 as a pure function, over the policy (from the tool's risk and the settings) and the
 * tool's assessment of the call (the command checker's class for run_command). Dangerous calls are refused under every policy, `auto` included.
 * `auto` runs the rest; an earlier `always` answer runs them too; `suggest` lets calls the tool
 * judged safe (read-only commands) run without asking; everything else asks.
 */
export function evaluateApproval(input: ApprovalInput): ApprovalVerdict {
  const { policy, assessment } = input;
  if (assessment?.level === 'dangerous') return { action: 'refuse', reason: assessment.reason ?? 'the operation is dangerous' };
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

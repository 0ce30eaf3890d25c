import type { ApprovalAnswer, ApprovalRequest, Approver } from '../engine/index.js';

/** An approver with a name, recorded as `by` in `approval/granted|denied` events. */
export interface NamedApprover extends Approver {
  readonly name: string;
}

/** The reason a non-interactive run gives for every denial. */
export const NO_TERMINAL_REASON = 'no terminal to ask';

/** For runs without a terminal: every question is answered no (and the runtime records it). */
export function createNonInteractiveApprover(): NamedApprover {
  return {
    name: 'non-interactive',
    interactive: false,
    async ask(): Promise<ApprovalAnswer> {
      return { decision: 'no', reason: NO_TERMINAL_REASON, noOneToAsk: true };
    },
  };
}

/** Says yes to everything (tests, scripted demos). The command checker still refuses dangerous calls. */
export function createAutoYesApprover(): NamedApprover {
  return {
    name: 'auto-yes',
    interactive: true,
    async ask(): Promise<ApprovalAnswer> {
      return { decision: 'yes' };
    },
  };
}

/** Replays fixed answers in order (then says no), recording every request: a fake for tests. */
export function createScriptedApprover(answers: readonly ApprovalAnswer[]): NamedApprover & { readonly requests: ApprovalRequest[] } {
  const queue = [...answers];
  const requests: ApprovalRequest[] = [];
  return {
    name: 'scripted',
    interactive: true,
    requests,
    async ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
      requests.push(request);
      return queue.shift() ?? { decision: 'no', reason: 'no scripted answer left' };
    },
  };
}

export function approverName(approver: Approver): string {
  const name = (approver as Partial<NamedApprover>).name;
  return typeof name === 'string' && name !== '' ? name : approver.interactive ? 'user' : 'non-interactive';
}

/**
 * Where a schedule loop is in its life. `running` until the run is cancelled (`cancelling`: no
 * node starts any more, running attempts are aborted and their outcomes recorded as cancelled)
 * or a fault stops it (`failing`: nothing more is recorded; the schedule rejects with the fault).
 * `closed` once it settles, keeping the phase it closed from, which decides what it settles with.
 */
export type ActiveLoopPhase =
  | { readonly kind: 'running' }
  | { readonly kind: 'cancelling'; readonly reason: string }
  | { readonly kind: 'failing'; readonly error: unknown };

export type LoopPhase = ActiveLoopPhase | { readonly kind: 'closed'; readonly from: ActiveLoopPhase };

export type LoopPhaseEvent =
  | { readonly kind: 'cancel'; readonly reason: string }
  | { readonly kind: 'fail'; readonly error: unknown }
  | { readonly kind: 'close' };

export const RUNNING_PHASE: ActiveLoopPhase = { kind: 'running' };

/**
 * The one transition function of the loop's phase. A cancel only stops a running loop (a later
 * one changes nothing); the first fault wins over a cancel and over later faults, even once closed,
 * so a fault found while the last transitions are stored still rejects the schedule; a close
 * happens once. Returns the phase unchanged when the event does not apply.
 */
export function nextLoopPhase(phase: LoopPhase, event: LoopPhaseEvent): LoopPhase {
  const active = activePhase(phase);
  switch (event.kind) {
    case 'cancel':
      return phase.kind === 'running' ? { kind: 'cancelling', reason: event.reason } : phase;
    case 'fail': {
      if (active.kind === 'failing') return phase;
      const failing: ActiveLoopPhase = { kind: 'failing', error: event.error };
      return phase.kind === 'closed' ? { kind: 'closed', from: failing } : failing;
    }
    case 'close':
      return phase.kind === 'closed' ? phase : { kind: 'closed', from: phase };
  }
}

/** The phase a loop is in, or closed from. */
export function activePhase(phase: LoopPhase): ActiveLoopPhase {
  return phase.kind === 'closed' ? phase.from : phase;
}

/** The fault that stops the loop, if one does. */
export function loopFailure(phase: LoopPhase): { readonly error: unknown } | undefined {
  const active = activePhase(phase);
  return active.kind === 'failing' ? { error: active.error } : undefined;
}

/** Why the run was cancelled, if it was. */
export function loopCancelReason(phase: LoopPhase): string | undefined {
  const active = activePhase(phase);
  return active.kind === 'cancelling' ? active.reason : undefined;
}

/** What the loop counts when it asks whether the schedule is over. */
export interface LoopCounts {
  /** Holds on dispatch (an amendment being built, the first step). */
  readonly hold: number;
  /** Nodes ready or running. */
  readonly inFlight: number;
  /** Attempts granted and not yet settled. */
  readonly executing: number;
}

/**
 * Whether the schedule is over: a failed loop once no attempt runs; otherwise once nothing is held
 * or in flight, or, cancelling, once nothing is in flight or running.
 */
export function loopIsOver(phase: LoopPhase, counts: LoopCounts): boolean {
  if (phase.kind === 'closed') return false;
  if (loopFailure(phase) !== undefined) return counts.executing === 0;
  if (counts.hold === 0 && counts.inFlight === 0) return true;
  return loopCancelReason(phase) !== undefined && counts.inFlight === 0 && counts.executing === 0;
}

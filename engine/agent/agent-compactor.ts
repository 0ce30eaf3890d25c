import type { PromptSnapshot } from '../context/system-prompt.js';
import type { Session } from '../session/session.js';
import type { ModelCallGate } from './model-call-gate.js';

/**
 * What the agent loop needs from compaction: a pressure check before each model call, and a
 * forced compaction after the provider said the context was too long. engine/compaction
 * implements it; an agent without one never compacts.
 */
/** Called just before a compaction runs (the `PreCompact` hooks), with what started it. */
export type BeforeCompaction = (trigger: 'threshold' | 'overflow') => Promise<void>;

export interface AgentCompactor {
  /** Tokens at which it compacts, when known: recorded with each request for the context gauge. */
  readonly threshold?: number;
  /** `gate`: the run's budget, asked before each summary call as before the node's own calls. */
  preStep(session: Session, snapshot: PromptSnapshot, signal: AbortSignal, before?: BeforeCompaction, gate?: ModelCallGate): Promise<unknown>;
  /** Resolves true when the surface got smaller, so the call may be retried once. */
  onContextOverflow(session: Session, snapshot: PromptSnapshot, signal: AbortSignal, before?: BeforeCompaction, gate?: ModelCallGate): Promise<boolean>;
  /** Called once when the agent ends: settles any background work for this surface. */
  release?(session: Session): Promise<void>;
}

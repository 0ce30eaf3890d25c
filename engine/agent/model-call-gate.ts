/** Output tokens a call is expected to write when its request sets no maximum: a typical agent step. */
export const EXPECTED_OUTPUT_TOKENS = 1_000;

/** A model call about to be sent, as the agent estimates it: its request's tokens and their price. */
export interface ModelCallEstimate {
  /** The node whose agent makes the call; null outside a plan node. */
  readonly nodeId: string | null;
  /** The request's input tokens, as counted for `request/context`. */
  readonly inputTokens: number;
  /** The request's maximum output, or the output a call is expected to write. */
  readonly outputTokens: number;
  /** USD of those tokens at the model's price, input at the cache-miss rate. */
  readonly costUsd: number;
  /** `summary`: a compaction summary of the node's context (absent: the agent's own call). */
  readonly call?: 'summary';
}

/** Admitted: the call may go; `settle` once its answer is in the log (or it failed). Refused: why. */
export type GateVerdict = { readonly admitted: true; settle(): void } | { readonly admitted: false; readonly reason: string };

/**
 * Asked before every model call of an agent (a run's budget): the call is sent only when admitted.
 * Implemented by the run (engine/run/budget); the agent only asks.
 */
export interface ModelCallGate {
  admit(call: ModelCallEstimate): Promise<GateVerdict>;
}

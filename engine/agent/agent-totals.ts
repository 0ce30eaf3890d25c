import type { Usage } from '../model/model-provider.js';
import type { Session } from '../session/session.js';

/** Tokens and cost an agent has spent, counted up as its model calls return. */
export interface AgentTotals {
  readonly usage: Usage;
  readonly costUsd: number;
  add(usage: Usage, costUsd: number): void;
}

/** Tokens and cost this surface's agent already spent: a resumed agent keeps counting from there. */
export function spentSoFar(session: Session): AgentTotals {
  const usage = { input: 0, output: 0, cacheHit: 0, reasoning: 0 };
  let costUsd = 0;
  const add = (next: Usage, cost: number): void => {
    usage.input += next.input;
    usage.output += next.output;
    usage.cacheHit += next.cacheHit;
    usage.reasoning += next.reasoning;
    costUsd += cost;
  };
  // The surface holds every answer since its start (it read them when it opened, and mirrors each append).
  for (const event of session.answers()) {
    if (event.payload.usage !== undefined) add(event.payload.usage, event.payload.costUsd ?? 0);
  }
  return {
    get usage() {
      return { ...usage };
    },
    get costUsd() {
      return costUsd;
    },
    add,
  };
}

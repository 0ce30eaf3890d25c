import { DagentError } from '../errors.js';

/** A worker no longer holds its claim of a node: it writes nothing more for the node, and the node is left to be taken over. */
export abstract class ClaimLostError extends DagentError {
  abstract readonly runId: string;
  abstract readonly nodeId: string;
  abstract readonly token: number;
}

/** A commit made with a token that is no longer the node's (another worker claimed it since). */
export class StaleClaimError extends ClaimLostError {
  constructor(readonly runId: string, readonly nodeId: string, readonly token: number, readonly current: number) {
    super(`node ${nodeId} of run ${runId}: claim token ${token} is stale (the node's token is ${current}); the outcome is not committed`);
  }
}

/** A renewal found the node's claim taken over: the store gave the node to another worker (this one was presumed dead). */
export class ClaimTakenOverError extends ClaimLostError {
  constructor(readonly runId: string, readonly nodeId: string, readonly token: number) {
    super(`node ${nodeId} of run ${runId}: claim token ${token} was taken over by another worker; nothing more is written for it`);
  }
}

/** Why a worker's claim ran out by its own clock (it could not renew in time, or the process was paused). */
export class ClaimExpiredError extends ClaimLostError {
  constructor(readonly runId: string, readonly nodeId: string, readonly token: number) {
    super(`node ${nodeId} of run ${runId}: claim token ${token} expired by this worker's clock (not renewed in time); nothing more is written for it`);
  }
}

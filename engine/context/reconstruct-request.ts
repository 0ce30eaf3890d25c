import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { DagentError } from '../errors.js';
import type { ToolSpec } from '../model/model-provider.js';
import { readEvents } from '../session/event-log.js';
import type { EventPayload, SessionEvent } from '../session/event-types.js';
import type { ModelMessage } from '../model/model-message.js';
import { eventToMessage, isSurfaceEvent } from '../session/surface.js';

export interface ReconstructedRequest {
  readonly runId: string;
  readonly nodeId: string | null;
  readonly step: number;
  readonly turn: number;
  readonly header: EventPayload<'request/header'>;
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  /** The messages as sent; a tool result also carries the meta stored with it (not sent to the model). */
  readonly messages: readonly InspectedMessage[];
  readonly estimatedTokens: number;
  /** The seq of the `request/header` event. */
  readonly seq: number;
  /** The node's hook runs (`hook/ran`) before this request: what ran around the calls the model sees. */
  readonly hooks: readonly InspectedHook[];
  /**
   * When the request belongs to an attempt that went on from its last completed step after its
   * process stopped (`step/resumed`): that step, and the seq of the event that says so.
   */
  readonly resumed?: { readonly fromStep: number; readonly attempt: number; readonly seq: number };
}

/** One hook run as `inspect` shows it. */
export type InspectedHook = EventPayload<'hook/ran'> & { readonly seq: number; readonly step: number };

/** A message of a reconstructed request: a tool result with its stored meta (truncated, original length, source, content type, provider). */
export type InspectedMessage = ModelMessage & { readonly meta?: EventPayload<'tool/result'>['meta'] };

export class RequestNotFoundError extends DagentError {}

/**
 * The exact request a model received at a node's step (the last request of the node when
 * `step` is omitted), rebuilt from the log alone: the recorded prompt version, the tool set,
 * and the message events the request was formed from.
 */
export async function reconstructRequest(
  db: Kysely<Database>,
  runId: string,
  nodeId: string | null,
  step?: number,
): Promise<ReconstructedRequest> {
  const requests = await readEvents(db, runId, { nodeId, types: ['request/header', 'request/context', 'step/resumed', 'node/snapshotted'] });
  const headers = requests.filter((event): event is SessionEvent<'request/header'> => event.type === 'request/header');
  const where = nodeId === null ? 'at run level' : `for node ${nodeId}`;
  if (headers.length === 0) throw new RequestNotFoundError(`run ${runId} has no model request ${where}`);
  const header = step === undefined ? headers.at(-1)! : headers.findLast((event) => event.step === step);
  if (header === undefined) {
    const steps = [...new Set(headers.map((event) => event.step))].join(', ');
    throw new RequestNotFoundError(`run ${runId} has no model request ${where} at step ${step}; steps with requests: ${steps}`);
  }
  const context = requests.find((event): event is SessionEvent<'request/context'> => event.type === 'request/context' && event.seq > header.seq);
  if (context === undefined) throw new RequestNotFoundError(`run ${runId}: request ${header.seq} has no request/context event`);
  const prompts = await readEvents(db, runId, { types: ['prompt/recorded'], toSeq: header.seq });
  const prompt = prompts.findLast(
    (event): event is SessionEvent<'prompt/recorded'> =>
      event.type === 'prompt/recorded' && event.payload.systemHash === header.payload.systemHash && event.payload.toolsHash === header.payload.toolsHash,
  );
  if (prompt === undefined) throw new RequestNotFoundError(`run ${runId}: prompt version ${header.payload.systemHash} is not in the log`);
  const messages = await messagesBySeq(db, runId, context.payload.messageSeqs);
  const hooks = nodeId === null ? [] : await readEvents(db, runId, { nodeId, types: ['hook/ran'], toSeq: header.seq });
  // The attempt a request belongs to began at its last `node/snapshotted`; a `step/resumed` after it carried it on.
  const began = requests.findLast((event) => event.type === 'node/snapshotted' && event.seq < header.seq)?.seq ?? 0;
  const resumed = requests.findLast((event): event is SessionEvent<'step/resumed'> => event.type === 'step/resumed' && event.seq > began && event.seq < header.seq);
  return {
    runId,
    nodeId,
    step: header.step,
    turn: header.turn,
    header: header.payload,
    system: prompt.payload.system,
    tools: prompt.payload.tools as ToolSpec[],
    messages,
    estimatedTokens: context.payload.estimatedTokens,
    seq: header.seq,
    hooks: hooks.flatMap((event) => (event.type === 'hook/ran' ? [{ ...event.payload, seq: event.seq, step: event.step }] : [])),
    ...(resumed === undefined ? {} : { resumed: { fromStep: resumed.payload.fromStep, attempt: resumed.payload.attempt, seq: resumed.seq } }),
  };
}

async function messagesBySeq(db: Kysely<Database>, runId: string, seqs: readonly number[]): Promise<InspectedMessage[]> {
  if (seqs.length === 0) return [];
  const low = Math.min(...seqs);
  const high = Math.max(...seqs);
  const wanted = new Set(seqs);
  const events = await readEvents(db, runId, { fromSeq: low, toSeq: high });
  const bySeq = new Map(events.filter((event) => wanted.has(event.seq)).map((event) => [event.seq, event]));
  return seqs.map((seq) => {
    const event = bySeq.get(seq);
    if (event === undefined || !isSurfaceEvent(event)) throw new RequestNotFoundError(`run ${runId}: message event ${seq} is missing from the log`);
    const message = eventToMessage(event);
    return event.type === 'tool/result' ? { ...message, meta: event.payload.meta } : message;
  });
}

import type { ModelRequest } from '../model/model-provider.js';
import { estimateSystemTokens, estimateToolTokens } from '../model/token-estimate.js';
import type { EventLog } from '../session/event-log.js';
import type { EventDraft } from '../session/event-types.js';
import type { Session } from '../session/session.js';
import type { PromptSnapshot } from './system-prompt.js';
import type { StepPosition } from './runtime-context.js';

export interface RecordRequestInput {
  readonly provider: string;
  readonly request: ModelRequest;
  readonly snapshot: PromptSnapshot;
  /** Whether this step injected a new runtime context. */
  readonly contextChanged: boolean;
  readonly position: StepPosition;
  /** The node's compaction threshold, recorded for its context gauge. */
  readonly compactionThreshold?: number;
}

/**
 * Prompt versions already recorded, per run log of this process (its views too: a worker's nodes
 * each append through a view under their claim, and each read every recorded prompt again):
 * recovered from the log on first use (one read, however many nodes ask at once). Keyed by what
 * the log and its views share, what this process knows of the run's writes.
 */
const recordedPrompts = new WeakMap<object, Promise<Set<string>>>();

/**
 * Records a request (SPEC §1.5): the system prompt and tool set once per version
 * (`prompt/recorded`), then `request/header` and `request/context`. With these and the message
 * events, `dagent inspect` rebuilds the exact request.
 */
export async function recordRequest(session: Session, input: RecordRequestInput): Promise<void> {
  await (await sendRequestRecord(session, input)).stored;
}

/**
 * `recordRequest` in two halves: resolves once the record's append is made, to the promise of its
 * being stored. Whatever the session appends after this resolves is stored after the record (one
 * process's appends to a run keep their order), so the caller may send the request meanwhile and
 * wait for `stored` before appending its answer.
 */
export async function sendRequestRecord(session: Session, input: RecordRequestInput): Promise<{ readonly stored: Promise<void> }> {
  const { request, snapshot, position } = input;
  const key = promptKey(snapshot.systemHash, snapshot.toolsHash);
  const recorded = await recordedPromptKeys(session.log);
  const drafts: EventDraft[] = [];
  // Taken before the append, so the run's other nodes asking at the same moment do not record it
  // again: their requests are appended after this one, which carries it (given back if it fails).
  const first = !recorded.has(key);
  if (first) {
    recorded.add(key);
    drafts.push({ ...promptDraft(snapshot), nodeId: session.nodeId, ...position });
  }
  drafts.push(
    {
      type: 'request/header' as const,
      nodeId: session.nodeId,
      ...position,
      payload: {
        agent: request.agent,
        provider: input.provider,
        model: request.model,
        parameters: { ...request.parameters },
        systemHash: snapshot.systemHash,
        toolsHash: snapshot.toolsHash,
        toolNames: snapshot.tools.map((tool) => tool.name),
        contextChanged: input.contextChanged,
      },
    },
    {
      type: 'request/context' as const,
      nodeId: session.nodeId,
      ...position,
      payload: {
        messageSeqs: request.messages.map((message) => message.seq),
        estimatedTokens: requestInputTokens(session, request),
        surfaceGeneration: session.replaceGeneration,
        ...(input.compactionThreshold === undefined ? {} : { compactionThresholdTokens: input.compactionThreshold }),
      },
    },
  );
  const stored = session.log.appendMany(drafts).then(
    () => undefined,
    (error: unknown) => {
      if (first) recorded.delete(key);
      throw error;
    },
  );
  return { stored };
}

/**
 * Records prompt versions before any request uses them, as events of the run (`dagent run` does
 * so for each node kind's system prompt and tools while the tokenizer loads): a wide stage's first
 * request then carries no 30 KB event on its way to the model. A version the log holds is skipped.
 */
export async function recordPrompts(log: EventLog, snapshots: readonly PromptSnapshot[]): Promise<void> {
  const recorded = await recordedPromptKeys(log);
  const fresh = new Map<string, PromptSnapshot>();
  for (const snapshot of snapshots) {
    const key = promptKey(snapshot.systemHash, snapshot.toolsHash);
    if (!recorded.has(key)) fresh.set(key, snapshot);
  }
  if (fresh.size === 0) return;
  for (const key of fresh.keys()) recorded.add(key);
  try {
    await log.appendMany([...fresh.values()].map(promptDraft));
  } catch (error) {
    for (const key of fresh.keys()) recorded.delete(key);
    throw error;
  }
}

function promptDraft(snapshot: PromptSnapshot): EventDraft<'prompt/recorded'> {
  return {
    type: 'prompt/recorded',
    payload: { systemHash: snapshot.systemHash, system: snapshot.system, toolsHash: snapshot.toolsHash, tools: snapshot.tools.map((tool) => ({ ...tool })) },
  };
}

/** A request's input tokens as `request/context` records them: the surface's messages, the system prompt, the tools. */
export function requestInputTokens(session: Session, request: ModelRequest): number {
  return session.messageTokens() + estimateSystemTokens(request.system) + estimateToolTokens(request.tools);
}

function promptKey(systemHash: string, toolsHash: string): string {
  return `${systemHash}:${toolsHash}`;
}

function recordedPromptKeys(log: EventLog): Promise<Set<string>> {
  const shared = log.writes;
  let keys = recordedPrompts.get(shared);
  if (keys === undefined) {
    keys = readPromptKeys(log);
    recordedPrompts.set(shared, keys);
    // A failed read is not kept: the next request reads again.
    keys.catch(() => recordedPrompts.delete(shared));
  }
  return keys;
}

async function readPromptKeys(log: EventLog): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const event of await log.read({ types: ['prompt/recorded'] })) {
    if (event.type === 'prompt/recorded') keys.add(promptKey(event.payload.systemHash, event.payload.toolsHash));
  }
  return keys;
}

import { z } from 'zod';
import type { Session } from '../session/index.js';
import { MAX_MEMORY_CHARS, MEMORY_KINDS, MEMORY_SCOPES, type MemoryScope } from './memory.js';
import type { AddMemoryInput, AddMemoryResult } from './memory-store.js';
import type { MemoryBank } from './scoped-memory-store.js';

/** The `remember` tool's arguments. */
export const rememberArgsSchema = z.object({
  content: z.string().trim().min(1).max(MAX_MEMORY_CHARS).describe('The fact to remember, in one or two self-contained sentences.'),
  kind: z.enum(MEMORY_KINDS).optional().describe('preference, convention, lesson, decision or fact (default fact).'),
  scope: z.enum(MEMORY_SCOPES).optional().describe('project (default) or user.'),
});

export type RememberArgs = z.infer<typeof rememberArgsSchema>;

export interface RememberResult extends AddMemoryResult {
  /** The tool result text the model reads. */
  readonly text: string;
}

/**
 * Adds a memory and, when it is new and the call happens within a run, records `memory/added`
 * on the session's node. The memory is stored first: the event points at a row that exists.
 */
export async function addMemory(store: MemoryBank, input: AddMemoryInput, session?: Session, signal?: AbortSignal): Promise<AddMemoryResult> {
  const result = await store.add(input, signal);
  if (result.created && session !== undefined) {
    const { memory } = result;
    const source = input.source;
    await session.append({
      type: 'memory/added',
      payload: {
        memoryId: memory.id,
        kind: memory.kind,
        scope: memory.scope,
        content: memory.content,
        ...(source === undefined ? {} : { origin: source.kind }),
        ...(source?.compactionId === undefined ? {} : { compactionId: source.compactionId }),
      },
    });
  }
  return result;
}

/**
 * The core of the `remember` tool: `args` validated by `rememberArgsSchema`, `scope` the default
 * when the model names none, `session` the calling node's (for the `memory/added` event).
 */
export async function rememberFromTool(
  store: MemoryBank,
  args: RememberArgs,
  scope: MemoryScope = 'project',
  session?: Session,
  signal?: AbortSignal,
): Promise<RememberResult> {
  const parsed = rememberArgsSchema.parse(args);
  const result = await addMemory(
    store,
    {
      content: parsed.content,
      ...(parsed.kind === undefined ? {} : { kind: parsed.kind }),
      scope: parsed.scope ?? scope,
      source: { kind: 'remember', ...(session === undefined ? {} : { runId: session.log.runId, ...(session.nodeId === null ? {} : { nodeId: session.nodeId }) }) },
    },
    session,
    signal,
  );
  const { memory } = result;
  const text = result.created
    ? `Remembered as ${memory.scope} ${memory.kind} #${memory.id}: ${memory.content}`
    : `Already remembered as ${memory.scope} ${memory.kind} #${memory.id}: ${memory.content}`;
  return { ...result, text };
}

import { z } from 'zod';

/**
 * Every event type of the session log, each defined once: its name and the zod schema of its
 * payload. The database, the live feed, the dashboard and the CLI all read them from here.
 * Payload schemas are loose objects: a field added later does not break older readers.
 */

const usage = z.object({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheHit: z.number().int().nonnegative(),
  cacheWrite: z.number().int().nonnegative().optional(),
  reasoning: z.number().int().nonnegative(),
});

const toolCall = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown(),
  argsText: z.string().optional(),
});

const userSource = z.enum(['user', 'instruction', 'handoff', 'runtime-context', 'memory', 'compaction-summary', 'note']);

export const EVENT_PAYLOADS = {
  'user/message': z.looseObject({
    content: z.string(),
    source: userSource,
    /** For runtime-context messages: the full state snapshot the message reflects. */
    context: z.record(z.string(), z.unknown()).optional(),
    compactionId: z.string().optional(),
  }),
  'assistant/message': z.looseObject({
    content: z.string(),
    reasoning: z.string().optional(),
    reasoningSignature: z.string().optional(),
    toolCalls: z.array(toolCall),
    finishReason: z.string(),
    provider: z.string(),
    model: z.string(),
    usage: usage.optional(),
    costUsd: z.number().nonnegative().optional(),
  }),
  'tool/call': z.looseObject({ toolCallId: z.string(), name: z.string(), args: z.unknown() }),
  'tool/result': z.looseObject({
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
    meta: z.looseObject({
      outcome: z.string(),
      truncated: z.boolean(),
      originalLength: z.number().int().nonnegative(),
      durationMs: z.number().nonnegative().optional(),
      args: z.unknown().optional(),
    }),
  }),
  'prompt/recorded': z.looseObject({
    systemHash: z.string(),
    system: z.string(),
    toolsHash: z.string(),
    tools: z.array(z.looseObject({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
  }),
  'request/header': z.looseObject({
    agent: z.string(),
    provider: z.string(),
    model: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    systemHash: z.string(),
    toolsHash: z.string(),
    toolNames: z.array(z.string()),
    contextChanged: z.boolean(),
  }),
  'request/context': z.looseObject({
    messageSeqs: z.array(z.number().int()),
    estimatedTokens: z.number().int().nonnegative(),
    surfaceGeneration: z.number().int().nonnegative(),
  }),
  'model/retried': z.looseObject({ attempt: z.number().int(), delayMs: z.number(), error: z.string(), status: z.number().optional() }),
  'agent/finished': z.looseObject({ reason: z.string(), detail: z.string().optional(), steps: z.number().int() }),
  'compaction/start': z.looseObject({
    compactionId: z.string(),
    trigger: z.string(),
    range: z.object({ start: z.number().int(), end: z.number().int() }),
    tokensBefore: z.number().int().nonnegative(),
  }),
  'compaction/summary': z.looseObject({ compactionId: z.string(), summary: z.string(), usage: usage.optional() }),
  'compaction/end': z.looseObject({
    compactionId: z.string(),
    outcome: z.enum(['committed', 'failed', 'discarded']),
    tokensAfter: z.number().int().nonnegative().optional(),
    error: z.string().optional(),
  }),
  'run/created': z.looseObject({ task: z.string(), workspace: z.string(), mode: z.string() }),
  'run/started': z.looseObject({ pid: z.number().int().optional(), host: z.string().optional(), planVersion: z.number().int().optional() }),
  'run/succeeded': z.looseObject({ result: z.string().optional() }),
  'run/failed': z.looseObject({ error: z.string() }),
  'run/cancelled': z.looseObject({ reason: z.string().optional() }),
  'plan/created': z.looseObject({ version: z.number().int().positive(), plan: z.unknown(), hash: z.string() }),
  'plan/approved': z.looseObject({ version: z.number().int().positive(), hash: z.string() }),
  'plan/rejected': z.looseObject({ version: z.number().int().positive(), reason: z.string().optional() }),
  'plan/amended': z.looseObject({ version: z.number().int().positive(), reason: z.string(), diff: z.unknown(), hash: z.string() }),
  'node/ready': z.looseObject({}),
  'node/started': z.looseObject({ attempt: z.number().int().positive() }),
  'node/succeeded': z.looseObject({ result: z.string(), filesChanged: z.array(z.string()).optional() }),
  'node/failed': z.looseObject({ error: z.string(), attempt: z.number().int().positive().optional() }),
  'node/skipped': z.looseObject({ reason: z.string() }),
  'node/cancelled': z.looseObject({ reason: z.string().optional() }),
  'node/retried': z.looseObject({ attempt: z.number().int().positive(), delayMs: z.number().nonnegative(), error: z.string() }),
  'replan/started': z.looseObject({ trigger: z.string(), progress: z.number(), mode: z.enum(['full', 'append']) }),
  'replan/finished': z.looseObject({ version: z.number().int().positive().optional(), outcome: z.string() }),
  'approval/requested': z.looseObject({ toolCallId: z.string(), tool: z.string(), args: z.unknown(), policy: z.string(), reason: z.string().optional() }),
  'approval/granted': z.looseObject({ toolCallId: z.string(), by: z.string() }),
  'approval/denied': z.looseObject({ toolCallId: z.string(), by: z.string(), reason: z.string().optional() }),
  'memory/added': z.looseObject({ memoryId: z.number().int(), kind: z.string(), scope: z.string(), content: z.string() }),
  'file/reverted': z.looseObject({
    path: z.string(),
    node: z.string().nullable().optional(),
    /** Reverting the whole run, or one node's change. */
    scope: z.enum(['run', 'node']).optional(),
    /** `restored` exactly, `deleted` (the file was created), or `patched` (reversed onto later edits). */
    action: z.enum(['restored', 'deleted', 'patched']).optional(),
    forced: z.boolean().optional(),
  }),
  'node/snapshotted': z.looseObject({ attempt: z.number().int().positive(), boundary: z.unknown() }),
  /** A node changed files its declared writes do not cover (a command's side effect): recorded, diffed and revertible like the others. */
  'writes/exceeded': z.looseObject({ paths: z.array(z.string()) }),
  'work/reported': z.looseObject({ title: z.string(), files: z.array(z.string()), reason: z.string() }),
  'run/paused': z.looseObject({ reason: z.string() }),
  'run/cancel-requested': z.looseObject({ by: z.string().optional() }),
  /** A run's nodes go to worker processes through the job queue (`run --workers`). */
  'dispatch/started': z.looseObject({ mode: z.enum(['shared', 'clone']), baseCommit: z.string().optional() }),
  /** A worker claimed a node attempt; `token` grows with every claim of the node. */
  'attempt/claimed': z.looseObject({ attempt: z.number().int().positive(), token: z.number().int().positive(), worker: z.string(), pid: z.number().int(), host: z.string() }),
  /** A worker's outcome of a node attempt, committed only while its claim's token was current; `patch` in clone mode. */
  'attempt/finished': z.looseObject({
    attempt: z.number().int().positive(),
    token: z.number().int().positive(),
    worker: z.string(),
    outcome: z.enum(['succeeded', 'failed']),
    answer: z.string().optional(),
    filesChanged: z.array(z.string()).optional(),
    error: z.string().optional(),
    retryable: z.boolean().optional(),
    patch: z.string().optional(),
  }),
} as const;

export type EventType = keyof typeof EVENT_PAYLOADS;
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as EventType[];

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_PAYLOADS, value);
}

export interface SurfaceOp {
  readonly op: 'replace';
  readonly start: number;
  readonly end: number;
}

/** One row of the log, typed by its `type`. */
export type SessionEvent<T extends EventType = EventType> = {
  [K in T]: {
    readonly seq: number;
    readonly runId: string;
    readonly nodeId: string | null;
    readonly turn: number;
    readonly step: number;
    readonly type: K;
    readonly payload: EventPayload<K>;
    readonly surfaceOp?: SurfaceOp;
    readonly sourceEventSeqs?: readonly number[];
    readonly createdAt: string;
  };
}[T];

/** What a caller hands to `append`: the log fills in seq, run and time. */
export type EventDraft<T extends EventType = EventType> = {
  [K in T]: {
    readonly type: K;
    readonly payload: EventPayload<K>;
    readonly nodeId?: string | null;
    readonly turn?: number;
    readonly step?: number;
    readonly surfaceOp?: SurfaceOp;
    readonly sourceEventSeqs?: readonly number[];
  };
}[T];

/** The whole union as one zod discriminated union on `type`: validates a draft's type and payload together. */
export const eventSchema = z.discriminatedUnion(
  'type',
  EVENT_TYPES.map((type) => z.object({ type: z.literal(type), payload: EVENT_PAYLOADS[type] })) as unknown as [
    z.ZodObject<{ type: z.ZodLiteral<EventType>; payload: z.ZodType }>,
    ...z.ZodObject<{ type: z.ZodLiteral<EventType>; payload: z.ZodType }>[],
  ],
);

import { z } from 'zod';
import { FINISH_REASONS } from '../model/model-provider.js';
import { lintFindingSchema } from '../plan/lint-finding.js';
import {
  APPROVAL_POLICIES,
  COMPACTION_STAGES,
  COMPACTION_TRIGGERS,
  END_REASONS,
  MEMORY_KINDS,
  MEMORY_SCOPES,
  RUN_MODES,
  TOOL_OUTCOMES,
} from './event-values.js';

/**
 * Every event type of the session log, each defined once: its name and the zod schema of its
 * payload. The database, the live feed, the dashboard and the CLI all read them from here.
 */

const usage = z.strictObject({
  input: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  cacheHit: z.number().int().nonnegative(),
  cacheWrite: z.number().int().nonnegative().optional(),
  reasoning: z.number().int().nonnegative(),
  /** The counts are estimates, not numbers the provider reported. */
  estimated: z.boolean().optional(),
});

const toolCall = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown(),
  argsText: z.string().optional(),
});

/** A plan lint finding as `plan/created` and `plan/amended` record it: the one lint finding schema. */
const planLintFinding = lintFindingSchema;

const seqRange = z.strictObject({ start: z.number().int(), end: z.number().int() });
const survivalFact = z.strictObject({ kind: z.enum(['path', 'identifier', 'failing-test']), value: z.string() });

const userSource = z.enum(['user', 'instruction', 'handoff', 'runtime-context', 'memory', 'compaction-summary', 'note']);

/**
 * Every field a writer may set is declared: payloads are strict on write, so a field nobody
 * declared is refused at `append` instead of being read back by a cast. Only `tool/result`'s
 * `meta` stays open, for the source details each tool adds (SPEC §1.6).
 */
const EVENT_PAYLOAD_SCHEMAS = {
  'user/message': () => z.strictObject({
    content: z.string(),
    source: userSource,
    /** For runtime-context messages: the full state snapshot the message reflects. */
    context: z.record(z.string(), z.unknown()).optional(),
    compactionId: z.string().optional(),
  }),
  'assistant/message': () => z.strictObject({
    content: z.string(),
    reasoning: z.string().optional(),
    reasoningSignature: z.string().optional(),
    toolCalls: z.array(toolCall),
    finishReason: z.enum(FINISH_REASONS),
    provider: z.string(),
    model: z.string(),
    usage: usage.optional(),
    costUsd: z.number().nonnegative().optional(),
  }),
  'tool/call': () => z.strictObject({ toolCallId: z.string(), name: z.string(), args: z.unknown() }),
  /**
   * Text of a model response while it streams, coalesced (a few events a second, cut at whitespace),
   * for a dashboard in another process. Display only: the `assistant/message` that follows is the
   * authority, and no model request is ever built from these.
   */
  'text/streamed': () => z.strictObject({ text: z.string().min(1) }),
  'tool/result': () => z.strictObject({
    toolCallId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
    meta: z.looseObject({
      outcome: z.enum(TOOL_OUTCOMES),
      truncated: z.boolean(),
      originalLength: z.number().int().nonnegative(),
      durationMs: z.number().nonnegative().optional(),
      args: z.unknown().optional(),
      path: z.string().optional(),
      url: z.string().optional(),
      contentType: z.string().optional(),
      provider: z.string().optional(),
      fatal: z.boolean().optional(),
    }),
  }),
  'prompt/recorded': () => z.strictObject({
    systemHash: z.string(),
    system: z.string(),
    toolsHash: z.string(),
    tools: z.array(z.strictObject({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
  }),
  'request/header': () => z.strictObject({
    agent: z.string(),
    provider: z.string(),
    model: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    systemHash: z.string(),
    toolsHash: z.string(),
    toolNames: z.array(z.string()),
    contextChanged: z.boolean(),
  }),
  'request/context': () => z.strictObject({
    messageSeqs: z.array(z.number().int()),
    estimatedTokens: z.number().int().nonnegative(),
    surfaceGeneration: z.number().int().nonnegative(),
    /** The node's compaction threshold when it has a compactor: its context gauge's full mark. */
    compactionThresholdTokens: z.number().int().nonnegative().optional(),
  }),
  'model/retried': () => z.strictObject({ attempt: z.number().int(), delayMs: z.number(), error: z.string(), status: z.number().optional() }),
  'agent/finished': () => z.strictObject({ reason: z.enum(END_REASONS), detail: z.string().optional(), steps: z.number().int() }),
  'compaction/start': () => z.strictObject({
    compactionId: z.string(),
    trigger: z.enum(COMPACTION_TRIGGERS),
    stage: z.enum(COMPACTION_STAGES).optional(),
    range: seqRange,
    tokensBefore: z.number().int().nonnegative(),
    regionTokens: z.number().int().nonnegative().optional(),
    surfaceGeneration: z.number().int().nonnegative().optional(),
    /** The summarizer's request, rebuilt with the system prompt and tools of the region's time. */
    summarizer: z
      .strictObject({
        model: z.string(),
        systemHash: z.string().optional(),
        toolsHash: z.string().optional(),
        messageSeqs: z.array(z.number().int()),
        instruction: z.string(),
      })
      .optional(),
  }),
  'compaction/summary': () => z.strictObject({
    compactionId: z.string(),
    summary: z.string(),
    usage: usage.optional(),
    attempts: z.number().int().positive().optional(),
    missingAfterFirst: z.array(survivalFact).optional(),
    appendedFacts: z.array(survivalFact).optional(),
  }),
  'compaction/end': () => z.strictObject({
    compactionId: z.string(),
    outcome: z.enum(['committed', 'failed', 'discarded']),
    stage: z.enum(COMPACTION_STAGES).optional(),
    tokensBefore: z.number().int().nonnegative().optional(),
    tokensAfter: z.number().int().nonnegative().optional(),
    summaryTokens: z.number().int().nonnegative().optional(),
    regionTokens: z.number().int().nonnegative().optional(),
    prunedSeqs: z.array(z.number().int()).optional(),
    attempts: z.number().int().nonnegative().optional(),
    reason: z.string().optional(),
    error: z.string().optional(),
  }),
  'run/created': () => z.strictObject({ task: z.string(), workspace: z.string(), mode: z.enum(RUN_MODES) }),
  'run/started': () => z.strictObject({ pid: z.number().int().optional(), host: z.string().optional(), planVersion: z.number().int().optional(), allowedLint: z.array(z.string()).optional() }),
  'run/succeeded': () => z.strictObject({ result: z.string().optional() }),
  'run/failed': () => z.strictObject({ error: z.string() }),
  'run/cancelled': () => z.strictObject({ reason: z.string().optional() }),
  'plan/created': () => z.strictObject({ version: z.number().int().positive(), plan: z.unknown(), hash: z.string(), reason: z.string().optional(), lint: z.array(planLintFinding).optional() }),
  'plan/approved': () => z.strictObject({ version: z.number().int().positive(), hash: z.string(), allowedLint: z.array(z.string()).optional() }),
  'plan/rejected': () => z.strictObject({ version: z.number().int().positive(), reason: z.string().optional() }),
  'plan/amended': () => z.strictObject({ version: z.number().int().positive(), reason: z.string(), diff: z.unknown(), hash: z.string(), plan: z.unknown(), lint: z.array(planLintFinding).optional() }),
  'node/ready': () => z.strictObject({}),
  'node/started': () => z.strictObject({ attempt: z.number().int().positive() }),
  'node/succeeded': () => z.strictObject({ result: z.string(), filesChanged: z.array(z.string()).optional() }),
  'node/failed': () => z.strictObject({ error: z.string(), attempt: z.number().int().positive().optional() }),
  'node/skipped': () => z.strictObject({ reason: z.string() }),
  'node/cancelled': () => z.strictObject({ reason: z.string().optional() }),
  'node/retried': () => z.strictObject({ attempt: z.number().int().positive(), delayMs: z.number().nonnegative(), error: z.string() }),
  'replan/started': () => z.strictObject({
    trigger: z.string(),
    progress: z.number(),
    mode: z.enum(['full', 'append']),
    /** The node that failed or reported the missed work. */
    nodeId: z.string().optional(),
  }),
  /** How a replan ended: a new plan version, the replan limit reached, or the planner failing. */
  'replan/finished': () => z.discriminatedUnion('outcome', [
    z.strictObject({ outcome: z.literal('amended'), version: z.number().int().positive() }),
    z.strictObject({ outcome: z.literal('gave-up'), reason: z.string() }),
    z.strictObject({ outcome: z.literal('failed'), error: z.string() }),
  ]),
  'approval/requested': () => z.strictObject({
    toolCallId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    policy: z.enum(APPROVAL_POLICIES),
    reason: z.string().optional(),
    /** One line saying what the operation does, as the human was shown it. */
    summary: z.string().optional(),
  }),
  'approval/granted': () => z.strictObject({
    toolCallId: z.string(),
    by: z.string(),
    tool: z.string().optional(),
    /** The human answered "always": later calls of this tool in the run need no answer. */
    always: z.literal(true).optional(),
  }),
  'approval/denied': () => z.strictObject({ toolCallId: z.string(), by: z.string(), tool: z.string().optional(), reason: z.string().optional() }),
  'memory/added': () => z.strictObject({ memoryId: z.number().int(), kind: z.enum(MEMORY_KINDS), scope: z.enum(MEMORY_SCOPES), content: z.string() }),
  'file/reverted': () => z.strictObject({
    path: z.string(),
    node: z.string().nullable().optional(),
    /** Reverting the whole run, or one node's change. */
    scope: z.enum(['run', 'node']).optional(),
    /** `restored` exactly, `deleted` (the file was created), or `patched` (reversed onto later edits). */
    action: z.enum(['restored', 'deleted', 'patched']).optional(),
    forced: z.boolean().optional(),
  }),
  'node/snapshotted': () => z.strictObject({ attempt: z.number().int().positive(), boundary: z.unknown() }),
  /** A node changed files its declared writes do not cover (a command's side effect): recorded, diffed and revertible like the others. */
  'writes/exceeded': () => z.strictObject({ paths: z.array(z.string()) }),
  'work/reported': () => z.strictObject({ title: z.string(), files: z.array(z.string()), reason: z.string() }),
  'run/paused': () => z.strictObject({ reason: z.string() }),
  'run/cancel-requested': () => z.strictObject({ by: z.string().optional() }),
  /** A run's nodes go to worker processes through the job queue (`run --workers`). */
  'dispatch/started': () => z.strictObject({ mode: z.enum(['shared', 'clone']), baseCommit: z.string().optional() }),
  /** A worker claimed a node attempt; `token` grows with every claim of the node. */
  'attempt/claimed': () => z.strictObject({ attempt: z.number().int().positive(), token: z.number().int().positive(), worker: z.string(), pid: z.number().int(), host: z.string() }),
  /** A worker's outcome of a node attempt, committed only while its claim's token was current; `patch` in clone mode. */
  'attempt/finished': () => z.strictObject({
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
  /** A command's process group started: on resume, one still running from an earlier process is stopped first. */
  'command/started': () => z.strictObject({ toolCallId: z.string(), pid: z.number().int().positive(), host: z.string(), startTime: z.string().nullable(), sandboxed: z.boolean() }),
} as const;

/**
 * The payload schema of each event type, built the first time that type is asked for: building all
 * of them at import took ~15 ms of every command's start-up, and `status`, `log` and `show` append
 * nothing. Each schema, once built, is the same strict schema as if it had been built at import.
 */
export const EVENT_PAYLOADS = builtOnFirstUse(EVENT_PAYLOAD_SCHEMAS);

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

type DraftSchema = z.ZodObject<{ type: z.ZodLiteral<EventType>; payload: z.ZodType }>;
let wholeUnion: z.ZodDiscriminatedUnion<[DraftSchema, ...DraftSchema[]]> | undefined;

/** The whole union as one zod discriminated union on `type`: validates a draft's type and payload together. */
export function eventSchema(): z.ZodDiscriminatedUnion<[DraftSchema, ...DraftSchema[]]> {
  wholeUnion ??= z.discriminatedUnion(
    'type',
    EVENT_TYPES.map((type) => z.object({ type: z.literal(type), payload: EVENT_PAYLOADS[type] })) as unknown as [DraftSchema, ...DraftSchema[]],
  );
  return wholeUnion;
}

/** An object with the keys of `builders`, whose value for a key is built by its builder when first read, then kept. */
function builtOnFirstUse<T extends Record<string, () => unknown>>(builders: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const values = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(builders) as (keyof T & string)[]) {
    Object.defineProperty(values, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = builders[key]!();
        Object.defineProperty(values, key, { value, enumerable: true, writable: false, configurable: false });
        return value;
      },
    });
  }
  return values;
}

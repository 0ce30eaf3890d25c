import { z } from 'zod';
import { AGENT_EVENTS } from './agent-events.js';
import { APPROVAL_EVENTS } from './approval-events.js';
import { BUDGET_EVENTS } from './budget-events.js';
import { COMPACTION_EVENTS } from './compaction-events.js';
import type { EventDefinition } from './define-event.js';
import { DISPATCH_EVENTS } from './dispatch-events.js';
import { HOOK_EVENTS } from './hook-events.js';
import { NODE_EVENTS } from './node-events.js';
import { RERUN_EVENTS } from './rerun-events.js';
import { ROUTING_EVENTS } from './routing-events.js';
import { RUN_EVENTS } from './run-events.js';
import { STEERING_EVENTS } from './steering-events.js';
import { TEAM_EVENTS } from './team-events.js';

// zod compiles an object schema's parser with new Function() at its first parse: some 0.1–0.5 ms
// per event type, on the run's thread, in its first seconds (40-odd types), for parses no faster
// than the plain ones at the sizes of events (~3 µs each, measured). Every schema here is built
// after this line (payload schemas are built on first use).
z.config({ jitless: true });

/**
 * Every event type of the session log, each defined once (in the file of its concern): its name,
 * its version and the zod schema of its payload. The database, the live feed, the dashboard and
 * the CLI all read them from here.
 *
 * Every field a writer may set is declared: payloads are strict on write, so a field nobody
 * declared is refused at `append` instead of being read back by a cast. Only `tool/result`'s
 * `meta` stays open, for the source details each tool adds (SPEC §1.6). Rows are validated again
 * when read, against the version they were written with (`readStoredPayload`).
 */
const EVENT_DEFINITIONS = { ...AGENT_EVENTS, ...COMPACTION_EVENTS, ...RUN_EVENTS, ...NODE_EVENTS, ...APPROVAL_EVENTS, ...DISPATCH_EVENTS, ...RERUN_EVENTS, ...HOOK_EVENTS, ...STEERING_EVENTS, ...BUDGET_EVENTS, ...ROUTING_EVENTS, ...TEAM_EVENTS } as const;

type Definitions = typeof EVENT_DEFINITIONS;

const EVENT_PAYLOAD_SCHEMAS = Object.fromEntries(Object.entries(EVENT_DEFINITIONS).map(([type, definition]) => [type, definition.payload])) as {
  readonly [K in keyof Definitions]: Definitions[K]['payload'];
};

/** The version each event type's appends record today. */
export const EVENT_VERSIONS = Object.fromEntries(Object.entries(EVENT_DEFINITIONS).map(([type, definition]) => [type, definition.version])) as Readonly<Record<keyof Definitions, number>>;

const definitionsRead = new Map<string, EventDefinition>();

/** The definition of a stored row's type (its current schema the one `EVENT_PAYLOADS` builds once), or undefined for a type this dagent does not know. */
export function eventDefinition(type: string): EventDefinition | undefined {
  if (!isEventType(type)) return undefined;
  let definition = definitionsRead.get(type);
  if (definition === undefined) {
    definition = { version: EVENT_VERSIONS[type], payload: () => EVENT_PAYLOADS[type], earlier: builtOnce(EVENT_DEFINITIONS[type].earlier) };
    definitionsRead.set(type, definition);
  }
  return definition;
}

/**
 * The payload schema of each event type, built the first time that type is asked for: building all
 * of them at import took ~15 ms of every command's start-up, and `status`, `log` and `show` append
 * nothing. Each schema, once built, is the same strict schema as if it had been built at import.
 */
export const EVENT_PAYLOADS = builtOnFirstUse(EVENT_PAYLOAD_SCHEMAS);

export type EventType = keyof typeof EVENT_PAYLOADS;
export type EventPayload<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;
/** What a writer hands over for a payload: the same as what is read back, but for fields the log fills in (a tool result's uniform meta). */
export type EventDraftPayload<T extends EventType> = z.input<(typeof EVENT_PAYLOADS)[T]>;

export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as EventType[];

/**
 * Builds each event type's payload schema and runs its check once (on an empty payload, which it
 * refuses), asking `worthIt()` before each type. A run pays both at the first append of each type,
 * in the middle of its first stage (the first write node's tool events: ~3 ms on W3's critical
 * path); this costs 20–30 ms for all types, so `warmNodePrompts` does it only while it would wait
 * for the tokenizer's thread anyway, the types of a node's attempt first.
 */
export function warmEventChecks(worthIt: () => boolean): void {
  for (const type of WARM_FIRST) {
    if (!worthIt()) return;
    EVENT_PAYLOADS[type].safeParse({});
  }
}

/** The types every model node's attempt appends, then every other: what a run meets first is warmed first. */
const NODE_ATTEMPT_TYPES: readonly EventType[] = ['node/started', 'node/snapshotted', 'user/message', 'request/header', 'request/context', 'assistant/message', 'agent/finished', 'node/keyed', 'node/succeeded', 'tool/call', 'tool/result', 'step/checkpointed'];
const WARM_FIRST: readonly EventType[] = [...new Set([...NODE_ATTEMPT_TYPES, ...EVENT_TYPES])];

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
    readonly payload: EventDraftPayload<K>;
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

/** Earlier versions whose payload schemas are built on first use and then kept (not once per row read). */
function builtOnce(earlier: EventDefinition['earlier']): EventDefinition['earlier'] {
  return Object.fromEntries(
    Object.entries(earlier).map(([version, { payload, upgrade }]) => {
      let schema: z.ZodType | undefined;
      return [version, { payload: () => (schema ??= payload()), upgrade }];
    }),
  );
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

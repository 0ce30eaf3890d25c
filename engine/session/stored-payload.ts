import { errorMessage, StoredEventError } from '../errors.js';
import type { EventDefinition } from './define-event.js';
import { eventDefinition } from './event-types.js';

/** The parts of a stored row (of the run being read) its payload is read from. */
export interface StoredPayloadRow {
  readonly seq: number | string;
  readonly type: string;
  readonly payload: string;
  readonly version: number | null;
}

/** Where the definition of an event type is looked up: the log's own types unless a test brings others. */
export type EventDefinitionLookup = (type: string) => EventDefinition | undefined;

/**
 * A stored row's payload, validated against the schema of the version it was written with (no
 * version: 1) and brought to today's shape. A row that does not parse, has a type or version this
 * dagent does not know, or does not match its schema is a `StoredEventError` naming the run, the
 * seq and the type, here at the read, never deep in a fold that trusted a cast.
 *
 * A row that records today's version of its type is not checked against the schema again: the
 * append that wrote it checked it against that very schema (strictly), and a version's schema never
 * changes (`tests/engine/session/event-schema-pins.test.ts` pins each one; a change is a new
 * version). The check would be redundant, and it was most of the cost of reading a long run (a cold
 * process spends ~100 ms on 20 000 rows warming the validator up). Rows of earlier versions, and
 * rows from before versions were recorded (no version), are validated and upgraded.
 */
export function readStoredPayload(runId: string, row: StoredPayloadRow, lookup: EventDefinitionLookup = eventDefinition): unknown {
  const version = row.version ?? 1;
  const fail = (issues: string): never => {
    throw new StoredEventError(runId, Number(row.seq), row.type, version, issues);
  };
  const definition = lookup(row.type);
  if (definition === undefined) return fail('unknown event type (written by a newer dagent?)');
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload) as unknown;
  } catch (error) {
    return fail(`the payload is not JSON (${errorMessage(error)})`);
  }
  if (row.version === definition.version) {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return fail('payload: expected an object');
    return payload;
  }
  const earlier = version === definition.version || !Object.hasOwn(definition.earlier, version) ? undefined : definition.earlier[version];
  if (version !== definition.version && earlier === undefined) return fail(`this dagent reads versions ${knownVersions(definition).join(', ')} of it`);
  const parsed = (earlier === undefined ? definition.payload() : earlier.payload()).safeParse(payload);
  if (!parsed.success) return fail(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'payload'}: ${issue.message}`).join('; '));
  return earlier === undefined ? payload : earlier.upgrade(payload);
}

function knownVersions(definition: EventDefinition): number[] {
  return [...Object.keys(definition.earlier).map(Number), definition.version].sort((a, b) => a - b);
}

import type { z } from 'zod';

/** How a payload written under an earlier version of its event type is read today. */
export interface EarlierEventVersion {
  /** The payload schema of that version, as rows of it were validated when written. */
  readonly payload: () => z.ZodType;
  /** The payload in today's shape. */
  readonly upgrade: (payload: unknown) => unknown;
}

/**
 * One event type of the session log: the version appends record today, its payload schema (built
 * on first use), and how each earlier version reads. A change to a payload's shape is a new
 * version here, with the old schema and its upgrade under `earlier`, so an old run still reads.
 */
export interface EventDefinition<S extends z.ZodType = z.ZodType> {
  readonly version: number;
  readonly payload: () => S;
  readonly earlier: Readonly<Record<number, EarlierEventVersion>>;
}

/** Declares an event type at `version` (rows stored before versions existed are version 1). */
export function defineEvent<S extends z.ZodType>(version: number, payload: () => S, earlier: Readonly<Record<number, EarlierEventVersion>> = {}): EventDefinition<S> {
  return { version, payload, earlier };
}

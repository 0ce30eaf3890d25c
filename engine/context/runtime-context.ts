import type { Session } from '../session/session.js';
import type { SessionEvent } from '../session/event-types.js';
import { canonicalJson } from '../canonical-json.js';

export interface StepPosition {
  readonly turn: number;
  readonly step: number;
}

/**
 * Runtime context projection (SPEC §1.3): compares this step's dynamic state with the last one
 * injected into this surface, recovered from the log. Equal: nothing is written. Different: one
 * `user/message` with `source: runtime-context` carrying the full new state; its text names only
 * what changed when an earlier state is still on the surface.
 */
export async function projectRuntimeContext(
  session: Session,
  context: Readonly<Record<string, unknown>>,
  position: StepPosition,
): Promise<SessionEvent<'user/message'> | undefined> {
  if (Object.keys(context).length === 0) return undefined;
  const previous = session.lastRuntimeContext()?.payload.context;
  const content = renderRuntimeContext(context, previous);
  if (content === undefined) return undefined;
  return session.append({
    type: 'user/message',
    turn: position.turn,
    step: position.step,
    payload: { content, source: 'runtime-context', context: { ...context } },
  });
}

/** The message text for a new state, or undefined when nothing changed. Pure. */
export function renderRuntimeContext(
  current: Readonly<Record<string, unknown>>,
  previous: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const keys = Object.keys(current).sort();
  const changed =
    previous === undefined
      ? keys
      : keys.filter((key) => canonicalJson(current[key]) !== canonicalJson(previous[key]));
  const removed = previous === undefined ? [] : Object.keys(previous).filter((key) => !(key in current)).sort();
  if (changed.length === 0 && removed.length === 0) return undefined;
  const heading = previous === undefined ? 'Runtime context:' : 'Runtime context changed:';
  const lines = changed.map((key) => {
    const value = renderValue(current[key]);
    return value.startsWith('\n') ? `- ${key}:${value}` : `- ${key}: ${value}`;
  });
  for (const key of removed) lines.push(`- ${key}: (no longer set)`);
  return `<runtime-context>\n${heading}\n${lines.join('\n')}\n</runtime-context>`;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return value.includes('\n') ? `\n${indent(value)}` : value;
  return JSON.stringify(value);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

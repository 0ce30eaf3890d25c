import type { Session } from '../session/index.js';

/** The summary section that lists facts worth keeping beyond the task (SUMMARY_SECTIONS names it). */
export const KEY_FACTS_SECTION = 'Key facts for later';

/** The kinds of fact a summary may propose to long-term memory. */
export const KEY_FACT_KINDS = ['decision', 'convention', 'lesson'] as const;

/** One fact a compaction summary proposes to long-term memory. */
export interface KeyFact {
  readonly kind: (typeof KEY_FACT_KINDS)[number];
  readonly content: string;
}

/** Where a compaction's key facts come from, for the memory's recorded source. */
export interface KeyFactOrigin {
  readonly session: Session;
  readonly compactionId: string;
}

/**
 * Receives the key facts of each committed summary (the composition root stores them as project
 * memories). Called after the commit; a failure here never undoes the compaction.
 */
export type KeyFactSink = (facts: readonly KeyFact[], origin: KeyFactOrigin, signal: AbortSignal) => Promise<void>;

const LONGEST_FACT_CHARS = 500;
const FACT_LINE = /^\s*[-*]\s*(decision|convention|lesson)s?\s*[:—-]\s*(.+?)\s*$/i;

/**
 * The facts under the summary's `## Key facts for later` heading: lines `- decision: …`,
 * `- convention: …`, `- lesson: …`, deduplicated (case and spaces aside), in order. Pure.
 */
export function extractKeyFacts(summary: string): KeyFact[] {
  const lines = summary.split('\n');
  const start = lines.findIndex((line) => /^#{1,6}\s+/.test(line) && line.replace(/^#{1,6}\s+/, '').trim().toLowerCase() === KEY_FACTS_SECTION.toLowerCase());
  if (start === -1) return [];
  const facts: KeyFact[] = [];
  const seen = new Set<string>();
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,6}\s+/.test(line)) break;
    const match = FACT_LINE.exec(line);
    if (match === null) continue;
    const content = match[2]!.trim();
    const key = content.toLowerCase().replace(/\s+/g, ' ');
    if (content === '' || content.length > LONGEST_FACT_CHARS || seen.has(key)) continue;
    seen.add(key);
    facts.push({ kind: match[1]!.toLowerCase() as KeyFact['kind'], content });
  }
  return facts;
}

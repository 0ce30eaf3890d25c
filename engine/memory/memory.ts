import { MEMORY_KINDS, MEMORY_SCOPES } from '../session/index.js';

export { MEMORY_KINDS, MEMORY_SCOPES };

/** Whose memory it is: the user's (across projects) or this project's. */
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** What kind of fact it is. */
export type MemoryKind = (typeof MEMORY_KINDS)[number];

/** The longest memory accepted, in characters: a memory is a fact, not a document. */
export const MAX_MEMORY_CHARS = 2_000;

/** Who wrote a memory: `dagent memory add` (`cli`), a model's `remember` call, or a compaction's key facts. */
export const MEMORY_ORIGINS = ['cli', 'remember', 'compaction'] as const;

/** Where a memory came from: its origin and, within a run, the run, the node and the compaction. */
export interface MemorySource {
  readonly kind: (typeof MEMORY_ORIGINS)[number];
  readonly runId?: string;
  readonly nodeId?: string;
  readonly compactionId?: string;
}

/** A long-term memory: outlives runs and sessions; clearing a session never clears it. */
export interface Memory {
  readonly id: number;
  readonly scope: MemoryScope;
  readonly kind: MemoryKind;
  readonly content: string;
  readonly keywords: readonly string[];
  readonly contentHash: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Absent for memories stored before sources were kept. */
  readonly source?: MemorySource;
}

/** A memory found by a search, with its relevance (higher is better; comparable within one search only). */
export interface RecalledMemory {
  readonly memory: Memory;
  readonly score: number;
}

export function isMemoryScope(value: string): value is MemoryScope {
  return (MEMORY_SCOPES as readonly string[]).includes(value);
}

export function isMemoryKind(value: string): value is MemoryKind {
  return (MEMORY_KINDS as readonly string[]).includes(value);
}

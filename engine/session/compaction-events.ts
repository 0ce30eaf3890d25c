import { z } from 'zod';
import { usage } from './agent-events.js';
import { defineEvent } from './define-event.js';
import { COMPACTION_STAGES, COMPACTION_TRIGGERS } from './event-values.js';

const seqRange = z.strictObject({ start: z.number().int(), end: z.number().int() });
const survivalFact = z.strictObject({ kind: z.enum(['path', 'identifier', 'failing-test']), value: z.string() });

const summaryV1 = () =>
  z.strictObject({
    compactionId: z.string(),
    summary: z.string(),
    usage: usage.optional(),
    attempts: z.number().int().positive().optional(),
    missingAfterFirst: z.array(survivalFact).optional(),
    appendedFacts: z.array(survivalFact).optional(),
  });

/** The events of a compaction of a node's context: its start, its summary, its end. */
export const COMPACTION_EVENTS = {
  'compaction/start': defineEvent(1, () => z.strictObject({
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
  })),
  /**
   * The summary a compaction wrote. v2 adds what its calls cost: `model`, the model that wrote it
   * (the node's, the small model or `summarizerModel`), and `costUsd`, its `usage` priced with that
   * model. A run's budget sums them with the answers' (v1 rows count their usage, at no cost).
   */
  'compaction/summary': defineEvent(2, () => summaryV1().extend({ model: z.string().optional(), costUsd: z.number().nonnegative().optional() }), {
    1: { payload: summaryV1, upgrade: (payload) => payload },
  }),
  'compaction/end': defineEvent(1, () => z.strictObject({
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
  })),
} as const;

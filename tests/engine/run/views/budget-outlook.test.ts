import { describe, expect, it } from 'vitest';
import { budgetOutlook, pausedBudgetWayOn } from '../../../../engine/run/views/budget-outlook.js';
import { foldRunView } from '../../../../engine/run/views/run-view.js';
import type { EventDraft, SessionEvent } from '../../../../engine/index.js';

/**
 * A run capped at 20 000 tokens: edit-a finished at 9 000, edit-b spent 4 000 before its next call
 * (about 5 500) was refused, edit-c has not started, and the test command runs no model. The cap
 * `status` suggests covers what was spent, the refused call, and the two edits left at edit-a's pace.
 */

function events(drafts: readonly EventDraft[]): SessionEvent[] {
  return drafts.map((draft, index) => ({ seq: index + 1, runId: 'r-1', nodeId: draft.nodeId ?? null, turn: 0, step: 0, type: draft.type, payload: draft.payload, createdAt: new Date(Date.UTC(2026, 11, 7, 10, 0, index)).toISOString() }) as SessionEvent);
}

const answer = (input: number) => ({ content: 'ok', toolCalls: [], finishReason: 'stop' as const, provider: 'p', model: 'm', usage: { input, output: 0, cacheHit: 0, reasoning: 0 }, costUsd: 0 });
const plan = {
  nodes: [
    { id: 'edit-a', kind: 'edit', title: 'A', dependsOn: [] },
    { id: 'edit-b', kind: 'edit', title: 'B', dependsOn: [] },
    { id: 'edit-c', kind: 'edit', title: 'C', dependsOn: ['edit-a', 'edit-b'] },
    { id: 'test', kind: 'command', title: 'Test', dependsOn: ['edit-c'] },
  ],
};

const paused = foldRunView(
  'r-1',
  events([
    { type: 'plan/created', payload: { version: 1, plan, hash: 'h' } },
    { type: 'budget/set', payload: { maxTokens: 20_000, source: 'flags' } },
    { type: 'run/started', payload: { planVersion: 1 } },
    { type: 'node/started', nodeId: 'edit-a', payload: { attempt: 1 } },
    { type: 'node/started', nodeId: 'edit-b', payload: { attempt: 1 } },
    { type: 'assistant/message', nodeId: 'edit-a', payload: answer(9_000) },
    { type: 'node/succeeded', nodeId: 'edit-a', payload: { result: 'done' } },
    { type: 'assistant/message', nodeId: 'edit-b', payload: answer(4_000) },
    { type: 'budget/reached', nodeId: 'edit-b', payload: { scope: 'run', measure: 'tokens', spent: 13_000, estimate: 5_500, cap: 20_000 } },
    { type: 'node/cancelled', nodeId: 'edit-b', payload: {} },
    { type: 'run/paused', payload: { reason: "the run's budget is reached", cause: 'budget' } },
  ]),
);

describe('budgetOutlook', () => {
  it('reads the spend, the refused call, the pace of the finished nodes and what each node left has spent', () => {
    expect(budgetOutlook(paused)).toEqual({
      spent: { costUsd: 0, tokens: 13_000 },
      refused: { measure: 'tokens', estimate: 5_500 },
      perFinishedNode: { costUsd: 0, tokens: 9_000 },
      nodesLeft: [
        { costUsd: 0, tokens: 4_000 },
        { costUsd: 0, tokens: 0 },
      ],
    });
  });

  it('gives status a resume command with a cap that takes the run to its end, not twice the cap', () => {
    // 13 000 + 5 500 + edit-b's 9 000 − 4 000 (at least 5 500) + edit-c's 9 000 = 33 000.
    expect(pausedBudgetWayOn(paused)).toBe('resume with a higher cap: dagent resume r-1 --max-tokens 33000');
  });
});

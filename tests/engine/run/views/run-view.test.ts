import { describe, expect, it } from 'vitest';
import { foldRunView, type EventDraft, type SessionEvent } from '../../../../engine/index.js';

let seq = 0;
const event = (draft: EventDraft): SessionEvent =>
  ({ seq: ++seq, runId: 'r-1', nodeId: draft.nodeId ?? null, turn: 0, step: 0, type: draft.type, payload: draft.payload, createdAt: `2026-11-30T10:00:${String(seq).padStart(2, '0')}.000Z` }) as SessionEvent;

const plan = { nodes: [{ id: 'a', kind: 'edit', title: 'A', dependsOn: [] }, { id: 'b', kind: 'command', title: 'B', dependsOn: ['a'] }] };

describe('the run view (what status and the dashboard show)', () => {
  it('follows a run from plan to success, with tokens and cost per node', () => {
    const view = foldRunView('r-1', [
      event({ type: 'run/created', payload: { task: 'rename', workspace: '/w', mode: 'plan' } }),
      event({ type: 'plan/created', payload: { version: 1, plan, hash: 'h' } }),
      event({ type: 'plan/approved', payload: { version: 1, hash: 'h' } }),
      event({ type: 'run/started', payload: {} }),
      event({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } }),
      event({ type: 'assistant/message', nodeId: 'a', payload: { content: '', toolCalls: [], finishReason: 'stop', provider: 'p', model: 'm', usage: { input: 1000, output: 50, cacheHit: 800, reasoning: 0 }, costUsd: 0.001 } }),
      event({ type: 'request/context', nodeId: 'a', payload: { messageSeqs: [1], estimatedTokens: 4200, surfaceGeneration: 0 } }),
      event({ type: 'node/succeeded', nodeId: 'a', payload: { result: 'done' } }),
      event({ type: 'node/started', nodeId: 'b', payload: { attempt: 1 } }),
      event({ type: 'node/succeeded', nodeId: 'b', payload: { result: 'ok' } }),
      event({ type: 'run/succeeded', payload: {} }),
    ]);
    expect(view.status).toBe('succeeded');
    expect(view.order).toEqual(['a', 'b']);
    expect(view.nodes.get('a')).toMatchObject({ status: 'succeeded', attempts: 1, tokens: { input: 1000, output: 50, cacheHit: 800 }, costUsd: 0.001, contextTokens: 4200, result: 'done' });
    expect(view.totals).toMatchObject({ input: 1000, cacheHit: 800, modelCalls: 1 });
  });

  it("folds a response's streamed text until its message arrives, and drops a failed attempt's text", () => {
    const start = [
      event({ type: 'plan/created', payload: { version: 1, plan, hash: 'h' } }),
      event({ type: 'run/started', payload: {} }),
      event({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } }),
      event({ type: 'text/streamed', nodeId: 'a', payload: { text: 'Reading the ' } }),
      event({ type: 'text/streamed', nodeId: 'a', payload: { text: 'interface first, ' } }),
    ];
    expect(foldRunView('r-1', start).nodes.get('a')?.streamingText).toBe('Reading the interface first, ');

    const retried = [...start, event({ type: 'model/retried', nodeId: 'a', payload: { attempt: 1, delayMs: 500, error: 'HTTP 503' } })];
    expect(foldRunView('r-1', retried).nodes.get('a')?.streamingText).toBeNull();
    const again = [...retried, event({ type: 'text/streamed', nodeId: 'a', payload: { text: 'Reading ' } })];
    expect(foldRunView('r-1', again).nodes.get('a')?.streamingText).toBe('Reading ');

    const answered = foldRunView('r-1', [
      ...again,
      event({ type: 'assistant/message', nodeId: 'a', payload: { content: 'Reading the interface first, then the rest.', toolCalls: [], finishReason: 'stop', provider: 'p', model: 'm', usage: { input: 10, output: 5, cacheHit: 0, reasoning: 0 } } }),
    ]);
    expect(answered.nodes.get('a')).toMatchObject({ streamingText: null, modelCalls: 1 });
    expect(answered.totals.modelCalls).toBe(1);
  });

  it('shows a failure, then a resume putting unfinished nodes back to pending', () => {
    const events = [
      event({ type: 'plan/created', payload: { version: 1, plan, hash: 'h' } }),
      event({ type: 'run/started', payload: {} }),
      event({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } }),
      event({ type: 'node/failed', nodeId: 'a', payload: { error: 'boom', attempt: 1 } }),
      event({ type: 'node/skipped', nodeId: 'b', payload: { reason: 'a failed' } }),
      event({ type: 'run/failed', payload: { error: 'node a failed: boom' } }),
    ];
    const failed = foldRunView('r-1', events);
    expect(failed).toMatchObject({ status: 'failed', error: 'node a failed: boom' });
    expect(failed.nodes.get('a')).toMatchObject({ status: 'failed', error: 'boom' });
    const resumed = foldRunView('r-1', [...events, event({ type: 'run/started', payload: {} })]);
    expect([...resumed.nodes.values()].map((node) => node.status)).toEqual(['pending', 'pending']);
  });

  it('tracks compactions, pending approvals and replans', () => {
    const view = foldRunView('r-1', [
      event({ type: 'plan/created', payload: { version: 1, plan, hash: 'h' } }),
      event({ type: 'compaction/start', nodeId: 'a', payload: { compactionId: 'k1', trigger: 'threshold', range: { start: 3, end: 40 }, tokensBefore: 170_000 } }),
      event({ type: 'compaction/end', nodeId: 'a', payload: { compactionId: 'k1', outcome: 'committed', tokensAfter: 30_000 } }),
      event({ type: 'approval/requested', nodeId: 'a', payload: { toolCallId: 'c1', tool: 'write_file', args: {}, policy: 'suggest' } }),
      event({ type: 'approval/requested', nodeId: 'a', payload: { toolCallId: 'c2', tool: 'run_command', args: {}, policy: 'suggest' } }),
      event({ type: 'approval/granted', nodeId: 'a', payload: { toolCallId: 'c1', by: 'user' } }),
      event({ type: 'replan/started', payload: { trigger: 'failure', progress: 0.6, mode: 'append' } }),
      event({ type: 'replan/finished', payload: { outcome: 'amended', version: 2 } }),
    ]);
    expect(view.nodes.get('a')?.compactions).toEqual([{ compactionId: 'k1', seq: expect.any(Number), trigger: 'threshold', tokensBefore: 170_000, tokensAfter: 30_000, outcome: 'committed' }]);
    expect(view.approvals.map((approval) => approval.toolCallId)).toEqual(['c2']);
    expect(view.replans).toEqual([{ seq: expect.any(Number), trigger: 'failure', mode: 'append', progress: 0.6, outcome: 'amended', version: 2 }]);
  });

  it('says what a replan changed: the node appended for reported missed work and the edges rewired', () => {
    const amended = { nodes: [...plan.nodes, { id: 'e', kind: 'edit', title: 'E', dependsOn: ['a'] }] };
    const view = foldRunView('r-1', [
      event({ type: 'plan/created', payload: { version: 1, plan, hash: 'h' } }),
      event({ type: 'run/started', payload: {} }),
      event({ type: 'work/reported', nodeId: 'b', payload: { title: 'Update E', files: ['src/e.ts'], reason: 'E implements A too' } }),
      event({ type: 'replan/started', payload: { trigger: 'missed-work', progress: 0.5, mode: 'append', nodeId: 'b' } }),
      event({
        type: 'plan/amended',
        payload: { version: 2, reason: 'b reported missed work', hash: 'h2', plan: amended, diff: { addedNodes: [{ id: 'e' }], removedNodes: [], addedEdges: [{ from: 'a', to: 'e' }], removedEdges: [] } },
      }),
      event({ type: 'replan/finished', payload: { outcome: 'amended', version: 2 } }),
      event({ type: 'request/context', nodeId: 'e', payload: { messageSeqs: [], estimatedTokens: 3000, surfaceGeneration: 0, compactionThresholdTokens: 6000 } }),
    ]);
    expect(view.order).toEqual(['a', 'b', 'e']);
    expect(view.reportedWork).toMatchObject([{ nodeId: 'b', title: 'Update E', files: ['src/e.ts'] }]);
    expect(view.replans[0]).toMatchObject({ nodeId: 'b', progress: 0.5, version: 2, change: { addedNodes: ['e'], removedNodes: [], addedEdges: ['a→e'], removedEdges: [] } });
    expect(view.nodes.get('e')).toMatchObject({ dependsOn: ['a'], contextTokens: 3000, compactionThreshold: 6000 });
  });

  it('marks a paused run with its reason and a cancel that was asked for', () => {
    const view = foldRunView('r-1', [
      event({ type: 'plan/created', payload: { version: 1, plan, hash: 'h' } }),
      event({ type: 'run/started', payload: {} }),
      event({ type: 'run/cancel-requested', payload: { by: 'dashboard' } }),
    ]);
    expect(view.cancelRequested).toBe(true);
    const paused = foldRunView('r-1', [event({ type: 'plan/created', payload: { version: 1, plan, hash: 'h' } }), event({ type: 'run/paused', payload: { reason: 'plan v2 waits for review', cause: 'review' } })]);
    expect(paused).toMatchObject({ status: 'awaiting_approval', pausedReason: 'plan v2 waits for review' });
  });
});

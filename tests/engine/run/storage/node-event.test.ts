import { describe, expect, it } from 'vitest';
import type { NodeTransition, SessionEvent } from '../../../../engine/index.js';
import { nodeEventDraft } from '../../../../engine/run/storage/node-event.js';
import { nodeStatesFromEvents } from '../../../../engine/run/views/node-states.js';
import { eventSchema } from '../../../../engine/session/event-types.js';

const BASE = { nodeId: 'edit-a', attempts: 2 } as const;

describe('nodeEventDraft', () => {
  it.each<[NodeTransition<unknown>, unknown]>([
    [{ ...BASE, from: 'pending', to: 'ready', kind: 'ready' }, { type: 'node/ready', nodeId: 'edit-a', payload: {} }],
    [{ ...BASE, from: 'ready', to: 'running', kind: 'started' }, { type: 'node/started', nodeId: 'edit-a', payload: { attempt: 2 } }],
    [{ ...BASE, from: 'running', to: 'succeeded', kind: 'succeeded', result: 'renamed' }, { type: 'node/succeeded', nodeId: 'edit-a', payload: { result: 'renamed' } }],
    [{ ...BASE, from: 'running', to: 'succeeded', kind: 'succeeded', result: { n: 1 } }, { type: 'node/succeeded', nodeId: 'edit-a', payload: { result: '{"n":1}' } }],
    [{ ...BASE, from: 'running', to: 'ready', kind: 'retried', error: '503', delayMs: 900 }, { type: 'node/retried', nodeId: 'edit-a', payload: { attempt: 2, delayMs: 900, error: '503' } }],
    [{ ...BASE, from: 'running', to: 'failed', kind: 'failed', error: 'tests red' }, { type: 'node/failed', nodeId: 'edit-a', payload: { error: 'tests red', attempt: 2 } }],
    [{ ...BASE, from: 'pending', to: 'skipped', kind: 'skipped', blockedBy: 'x', reason: 'dependency "x" failed' }, { type: 'node/skipped', nodeId: 'edit-a', payload: { reason: 'dependency "x" failed' } }],
    [{ ...BASE, from: 'running', to: 'cancelled', kind: 'cancelled', reason: 'run cancelled' }, { type: 'node/cancelled', nodeId: 'edit-a', payload: { reason: 'run cancelled' } }],
    [{ ...BASE, from: 'failed', to: 'pending', kind: 'reset', cause: 'resume' }, undefined],
  ])('$kind → %o', (change, expected) => {
    const draft = nodeEventDraft(change);
    expect(draft).toEqual(expected);
    if (draft !== undefined) expect(eventSchema().safeParse(draft).success).toBe(true);
  });

  it('takes files changed from a result description', () => {
    const change: NodeTransition<{ answer: string; files: string[] }> = { ...BASE, from: 'running', to: 'succeeded', kind: 'succeeded', result: { answer: 'done', files: ['src/a.ts'] } };
    expect(nodeEventDraft(change, (result) => ({ result: result.answer, filesChanged: result.files }))).toEqual({
      type: 'node/succeeded',
      nodeId: 'edit-a',
      payload: { result: 'done', filesChanged: ['src/a.ts'] },
    });
  });
});

describe('nodeStatesFromEvents', () => {
  let seq = 0;
  const event = (nodeId: string | null, type: string, payload: object = {}): SessionEvent =>
    ({ seq: (seq += 1), runId: 'r', nodeId, turn: 0, step: 0, type, payload, createdAt: '' }) as SessionEvent;

  it('folds each node to its last status and highest attempt', () => {
    const events = [
      event(null, 'run/created', { task: 't', workspace: '/w', mode: 'plan' }),
      event('a', 'node/ready'),
      event('a', 'node/started', { attempt: 1 }),
      event('a', 'node/retried', { attempt: 1, delayMs: 10, error: '503' }),
      event('a', 'node/started', { attempt: 2 }),
      event('a', 'tool/call', { toolCallId: 'c', name: 'read_file', args: {} }),
      event('a', 'node/succeeded', { result: 'ok' }),
      event('b', 'node/ready'),
      event('b', 'node/started', { attempt: 1 }),
      event('c', 'node/skipped', { reason: 'dependency "b" failed' }),
    ];
    expect(Object.fromEntries(nodeStatesFromEvents(events))).toEqual({
      a: { status: 'succeeded', attempts: 2 },
      b: { status: 'running', attempts: 1 },
      c: { status: 'skipped', attempts: 0 },
    });
  });
});

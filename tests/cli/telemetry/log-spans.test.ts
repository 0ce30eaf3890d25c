import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../engine/index.js';
import { spansFromLog } from '../../../cli/telemetry/log-spans.js';

/** Spans from a hand-written log: attempts, approval waits, content only when opted in, unfinished spans. */
let seq = 0;
const event = (type: string, nodeId: string | null, payload: unknown, second: number): SessionEvent =>
  ({ seq: ++seq, runId: 'r-1', nodeId, turn: 0, step: 1, type, payload, createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString() }) as unknown as SessionEvent;

const usage = { input: 100, output: 10, cacheHit: 40, reasoning: 0 };
const LOG: SessionEvent[] = [
  event('run/created', null, { task: 'secret task text', workspace: '/w', mode: 'plan' }, 0),
  event('plan/created', null, { version: 1, plan: {}, hash: 'h' }, 1),
  event('run/started', null, {}, 2),
  event('node/started', 'a', { attempt: 1 }, 3),
  event('request/header', 'a', { agent: 'node:a', provider: 'openai', model: 'gpt-4.1', parameters: {}, systemHash: '', toolsHash: '', toolNames: [], contextChanged: false }, 4),
  event('assistant/message', 'a', { content: 'the answer', toolCalls: [], finishReason: 'tool-calls', provider: 'openai', model: 'gpt-4.1', usage }, 5),
  event('tool/call', 'a', { toolCallId: 't1', name: 'run_command', args: { command: 'rm -rf build' } }, 6),
  event('approval/requested', 'a', { toolCallId: 't1', tool: 'run_command', args: {}, policy: 'suggest' }, 6),
  event('approval/granted', 'a', { toolCallId: 't1', by: 'user' }, 9),
  event('tool/result', 'a', { toolCallId: 't1', name: 'run_command', content: 'exit 1', isError: true, meta: { outcome: 'error', truncated: false, originalLength: 6 } }, 10),
  event('node/failed', 'a', { error: 'tests red', attempt: 1 }, 11),
  event('node/retried', 'a', { attempt: 2, delayMs: 0, error: 'tests red' }, 11),
  event('node/started', 'a', { attempt: 2 }, 12),
];

describe('spansFromLog', () => {
  it('makes a span per node attempt, model call, tool call and approval wait, nested under the attempt', () => {
    const spans = spansFromLog('r-1', LOG);
    const byKey = new Map(spans.map((span) => [span.key, span]));
    expect(spans.map((span) => `${span.name} < ${span.parentKey ?? '-'}`)).toEqual([
      'dagent run < -',
      `invoke_agent a < run`,
      `chat gpt-4.1 < node:a:4`,
      `execute_tool run_command < node:a:4`,
      `approval run_command < node:a:4`,
      `invoke_agent a < run`,
    ]);
    expect(byKey.get('node:a:4')).toMatchObject({ error: 'tests red', endTime: '2026-01-01T00:00:11.000Z', attributes: { 'dagent.node.attempt': 1, 'dagent.plan.version': 1, 'gen_ai.usage.input_tokens': 100 } });
    expect(byKey.get('approval:t1')).toMatchObject({ startTime: '2026-01-01T00:00:06.000Z', endTime: '2026-01-01T00:00:09.000Z', attributes: { 'dagent.approval.decision': 'granted' } });
    expect(byKey.get('model:5')?.attributes).toMatchObject({ 'gen_ai.request.model': 'gpt-4.1', 'gen_ai.usage.cache_read.input_tokens': 40, 'gen_ai.response.finish_reasons': ['tool-calls'] });
    // The run and the second attempt have not ended in this log.
    expect(byKey.get('run')?.endTime).toBeNull();
    expect(byKey.get('node:a:13')?.endTime).toBeNull();
  });

  it('keeps the task, answers, arguments and results out unless content is opted in', () => {
    const plain = JSON.stringify(spansFromLog('r-1', LOG));
    for (const text of ['secret task text', 'the answer', 'rm -rf build', 'exit 1']) expect(plain).not.toContain(text);
    const withContent = JSON.stringify(spansFromLog('r-1', LOG, { includeContent: true }));
    for (const text of ['the answer', 'rm -rf build', 'exit 1']) expect(withContent).toContain(text);
    expect(withContent).not.toContain('secret task text');
  });
});

describe('spansFromLog of a resumed run', () => {
  const resumed: SessionEvent[] = [
    event('run/created', null, { task: 't', workspace: '/w', mode: 'plan' }, 0),
    event('run/started', null, {}, 1),
    event('node/started', 'a', { attempt: 1 }, 2),
    event('node/failed', 'a', { error: 'red', attempt: 1 }, 3),
    event('run/failed', null, { error: 'node a failed' }, 4),
    event('run/started', null, {}, 5),
    event('node/started', 'a', { attempt: 2 }, 6),
    event('node/succeeded', 'a', { attempt: 2 }, 7),
    event('run/succeeded', null, {}, 8),
  ];

  it('never reopens the ended run span: the second execution is a span of its own under it', () => {
    const spans = spansFromLog('r-1', resumed);
    const [firstStart, secondStart] = resumed.filter((entry) => entry.type === 'run/started').map((entry) => entry.seq);
    expect(spans.map((span) => `${span.name} < ${span.parentKey ?? '-'}`)).toEqual([
      'dagent run < -',
      'invoke_agent a < run',
      'dagent run (resumed) < run',
      `invoke_agent a < resume:${secondStart}`,
    ]);
    const byKey = new Map(spans.map((span) => [span.key, span]));
    expect(byKey.get('run')).toMatchObject({ endTime: '2026-01-01T00:00:04.000Z', error: 'node a failed', attributes: { 'dagent.run.status': 'failed' } });
    expect(byKey.get(`resume:${secondStart}`)).toMatchObject({ startTime: '2026-01-01T00:00:05.000Z', endTime: '2026-01-01T00:00:08.000Z', error: null, attributes: { 'dagent.run.status': 'succeeded' } });
    expect(firstStart).toBeLessThan(secondStart!);
  });

  it('goes on in the same run span after a process that died (the run never ended)', () => {
    const died = resumed.filter((entry) => entry.type !== 'node/failed' && entry.type !== 'run/failed');
    const spans = spansFromLog('r-1', died);
    expect(spans.map((span) => `${span.name} < ${span.parentKey ?? '-'}`)).toEqual(['dagent run < -', 'invoke_agent a < run', 'invoke_agent a < run']);
    expect(spans[1]).toMatchObject({ error: 'interrupted: the run started again' });
  });
});

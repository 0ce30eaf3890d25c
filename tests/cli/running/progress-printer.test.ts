import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CliIo } from '../../../cli/context/cli-io.js';
import { PROGRESS_LINES_WAIT_MS, createProgressPrinter } from '../../../cli/running/progress.js';
import { emptyRunView, type SessionEvent } from '../../../engine/index.js';
import { capturedStream } from '../../helpers/captured-stream.js';

let seq = 0;
const event = (type: string, nodeId: string | null, payload: Record<string, unknown>, at = '2026-12-05T10:00:00.000Z'): SessionEvent =>
  ({ seq: ++seq, runId: 'r-1', nodeId, turn: 0, step: 0, type, payload, createdAt: at }) as unknown as SessionEvent;

/** A terminal-less CLI whose stdout keeps each write apart. */
function capturedIo(): { io: CliIo; writes: string[] } {
  const { stream, writes } = capturedStream();
  const io = { stdout: stream, stderr: stream, stdin: process.stdin, env: {}, cwd: '/', interrupt: new AbortController().signal } as unknown as CliIo;
  return { io, writes };
}

describe('progress lines of a run', () => {
  beforeEach(() => {
    seq = 0;
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('a wide stage starting goes out as one write, its lines in order, once the burst is over', () => {
    const { io, writes } = capturedIo();
    const print = createProgressPrinter(io, { json: false, initial: emptyRunView('r-1') });

    // The stage's starts arrive in three deliveries, with events that make no line among them.
    print([event('node/started', 'read-0', { attempt: 1 }), event('node/started', 'read-1', { attempt: 1 })]);
    print([event('user/message', 'read-0', { content: 'read it' })]);
    print([event('node/started', 'read-2', { attempt: 1 })]);
    expect(writes).toEqual([]);

    vi.advanceTimersByTime(PROGRESS_LINES_WAIT_MS);
    expect(writes).toEqual(['10:00:00  ▶ read-0 started\n10:00:00  ▶ read-1 started\n10:00:00  ▶ read-2 started\n']);
  });

  it('the lines still waiting when the run ends are written by flush, and nothing twice', () => {
    const { io, writes } = capturedIo();
    const print = createProgressPrinter(io, { json: false, initial: emptyRunView('r-1') });

    print([event('node/started', 'edit', { attempt: 1 }, '2026-12-05T10:00:00.000Z')]);
    print([event('assistant/message', 'edit', { provider: 'scripted', model: 'm', content: 'done', toolCalls: [], usage: { input: 1200, output: 34, cacheHit: 0, reasoning: 0 }, costUsd: 0 })]);
    print([event('node/succeeded', 'edit', { result: 'done', filesChanged: ['a.ts'] }, '2026-12-05T10:00:01.500Z')]);
    print.flush();
    vi.advanceTimersByTime(PROGRESS_LINES_WAIT_MS * 2);

    expect(writes).toHaveLength(1);
    const lines = writes[0]!.trimEnd().split('\n');
    expect(lines[0]).toBe('10:00:00  ▶ edit started');
    // The success line reads the fold: its time since the start, and the tokens of its answer.
    expect(lines[1]).toBe('10:00:01  ✓ edit 1.5s · 1.2K tokens · $0 · a.ts');
  });

  it('the run as the lines follow it includes the events whose lines are still waiting', () => {
    const { io, writes } = capturedIo();
    const print = createProgressPrinter(io, { json: false, initial: emptyRunView('r-1') });

    print([event('node/started', 'read-0', { attempt: 1 })]);
    print([event('node/succeeded', 'read-0', { result: 'read' }), event('node/started', 'edit', { attempt: 1 })]);

    expect(writes).toEqual([]);
    expect([...print.view().nodes.values()].map((node) => [node.id, node.status])).toEqual([
      ['read-0', 'succeeded'],
      ['edit', 'running'],
    ]);
    vi.advanceTimersByTime(PROGRESS_LINES_WAIT_MS);
    expect(writes.join('').trimEnd().split('\n')).toEqual(['10:00:00  ▶ read-0 started', '10:00:00  ✓ read-0 0ms · 0 tokens · $0', '10:00:00  ▶ edit started']);
  });

  it('a question for the user goes out at once, after the lines before it', () => {
    const { io, writes } = capturedIo();
    const print = createProgressPrinter(io, { json: false, initial: emptyRunView('r-1') });

    print([event('node/started', 'deploy', { attempt: 1 })]);
    print([event('approval/requested', 'deploy', { toolCallId: 'call_1', tool: 'run_command', summary: 'npm publish', risk: 'high' })]);

    expect(writes).toEqual(['10:00:00  ▶ deploy started\n10:00:00  ? deploy asks to run npm publish (approve from `dagent dashboard r-1`)\n']);
  });

  it('with --json every event is a line, the ones the fold skips too', () => {
    const { io, writes } = capturedIo();
    const print = createProgressPrinter(io, { json: true, initial: emptyRunView('r-1') });

    print([event('node/started', 'a', { attempt: 1 }), event('user/message', 'a', { content: 'go' })]);
    print.flush();

    const lines = writes.join('').trimEnd().split('\n').map((line) => JSON.parse(line) as { type: string; nodeId: string });
    expect(lines.map((line) => [line.type, line.nodeId])).toEqual([
      ['node/started', 'a'],
      ['user/message', 'a'],
    ]);
  });
});

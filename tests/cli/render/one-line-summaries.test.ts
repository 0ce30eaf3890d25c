import { describe, expect, it } from 'vitest';
import { renderStatusText } from '../../../cli/commands/status.js';
import { foldLines, summarizeEvent } from '../../../cli/render/index.js';
import { foldRunView, type EventDraft, type SessionEvent } from '../../../engine/index.js';

const START = Date.parse('2026-12-07T10:00:00.000Z');

function events(drafts: readonly EventDraft[]): SessionEvent[] {
  return drafts.map(
    (draft, index) =>
      ({ seq: index + 1, runId: 'r-1', nodeId: draft.nodeId ?? null, turn: 0, step: 0, type: draft.type, payload: draft.payload, createdAt: new Date(START + index * 1000).toISOString() }) as SessionEvent,
  );
}

describe('foldLines', () => {
  it.each([
    ['spaces inside a line stay', "printf 'a  b'", "printf 'a  b'"],
    ['a line break becomes one space, with the blanks around it', 'exit 1\n   at step 2  \n\nbye', 'exit 1 at step 2 bye'],
    ['a Windows line break too', 'one\r\ntwo', 'one two'],
    ['a tab is one space', 'a\t\tb', 'a  b'],
    ['the ends are trimmed', '  \n padded  \n', 'padded'],
  ])('%s', (_name, text, expected) => {
    expect(foldLines(text)).toBe(expected);
  });
});

describe('one-line summaries keep the spaces of the text they quote', () => {
  it("dagent log shows a command as it ran: printf 'a  b', not printf 'a b'", () => {
    const [call] = events([{ type: 'tool/call', nodeId: 'say', payload: { toolCallId: 't1', name: 'run_command', args: { command: "printf 'a  b' > out.txt" } } }]);

    expect(summarizeEvent(call!)).toBe(`run_command {"command":"printf 'a  b' > out.txt"}`);
  });

  it('dagent log still puts a many-line error on one line', () => {
    const [failed] = events([{ type: 'node/failed', nodeId: 'say', payload: { error: 'exit 1:\n  expected "a  b"\n  got "a b"' } }]);

    expect(summarizeEvent(failed!)).toBe('exit 1: expected "a  b" got "a b"');
  });

  it("status names a failed node's error with its spaces as they were", () => {
    const view = foldRunView(
      'r-1',
      events([
        { type: 'run/created', payload: { task: 'Print   aligned columns', workspace: '/w', mode: 'plan' } },
        { type: 'plan/created', payload: { version: 1, plan: { nodes: [{ id: 'say', kind: 'command', title: 'Print', command: "printf 'a  b'", dependsOn: [] }] }, hash: 'h1' } },
        { type: 'run/started', payload: { planVersion: 1 } },
        { type: 'node/started', nodeId: 'say', payload: { attempt: 1 } },
        { type: 'node/failed', nodeId: 'say', payload: { error: "`printf 'a  b' | grep -q 'a  c'` exited 1" } },
      ]),
    );

    const text = renderStatusText(view, new Date(START + 10_000));
    expect(text.split('\n')[1]).toBe('Print   aligned columns');
    expect(text).toContain("say failed: `printf 'a  b' | grep -q 'a  c'` exited 1");
  });
});

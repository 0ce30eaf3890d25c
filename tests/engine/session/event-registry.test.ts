import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, createRun, readEvents, type EventDraft, type Store } from '../../../engine/index.js';
import { InvalidEventError } from '../../../engine/errors.js';
import { EVENT_PAYLOADS, EVENT_TYPES, warmEventChecks } from '../../../engine/session/event-types.js';
import { openTempStore } from '../../helpers/temp-store.js';

describe('the event registry', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let log: EventLog;
  beforeEach(async () => {
    ({ store, cleanup } = await openTempStore());
    const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
    log = new EventLog(store.db, run.id);
  });
  afterEach(async () => cleanup());

  /** Appends a draft the type system would refuse, as a writer that skipped the types would. */
  const appendUnchecked = (draft: { type: string; payload: unknown; nodeId?: string }) => log.append(draft as unknown as EventDraft);

  it('refuses a field nobody declared, naming it, and writes nothing', async () => {
    await expect(appendUnchecked({ type: 'node/started', nodeId: 'a', payload: { attempt: 1, worker: 'w-1' } })).rejects.toThrow(
      /invalid node\/started event: .*Unrecognized key: "worker"/,
    );
    expect(await readEvents(store.db, log.runId)).toHaveLength(1); // only run/created
  });

  it.each([
    ['agent/finished', { reason: 'bored', steps: 1 }, /reason/],
    ['assistant/message', { content: '', toolCalls: [], finishReason: 'tired', provider: 'p', model: 'm' }, /finishReason/],
    ['compaction/start', { compactionId: 'k', trigger: 'pressure', range: { start: 1, end: 2 }, tokensBefore: 10 }, /trigger/],
    ['memory/added', { memoryId: 1, kind: 'rumour', scope: 'project', content: 'x' }, /kind/],
    ['run/created', { task: 't', workspace: '/w', mode: 'solo' }, /mode/],
    ['approval/requested', { toolCallId: 'c', tool: 'write_file', args: {}, policy: 'sometimes' }, /policy/],
  ])('refuses a %s whose closed value is not one of its set', async (type, payload, field) => {
    const error = await appendUnchecked({ type, payload }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(String(error)).toMatch(field);
  });

  it('keeps replan/finished to one shape per outcome', async () => {
    await log.append({ type: 'replan/finished', payload: { outcome: 'amended', version: 2 } });
    await log.append({ type: 'replan/finished', payload: { outcome: 'gave-up', reason: 'the limit of 2 replans is reached' } });
    await log.append({ type: 'replan/finished', payload: { outcome: 'failed', error: 'planner timed out' } });
    await expect(appendUnchecked({ type: 'replan/finished', payload: { outcome: 'amended' } })).rejects.toThrow(InvalidEventError);
    await expect(appendUnchecked({ type: 'replan/finished', payload: { outcome: 'failed', version: 3 } })).rejects.toThrow(InvalidEventError);
    const finished = await log.read({ types: ['replan/finished'] });
    expect(finished.map((event) => (event.payload.outcome === 'amended' ? `v${event.payload.version}` : event.payload.outcome))).toEqual(['v2', 'gave-up', 'failed']);
  });

  it('declares the fields approvals and amendments are read back by', () => {
    expect(EVENT_PAYLOADS['approval/granted'].safeParse({ toolCallId: 'c', by: 'terminal', tool: 'write_file', always: true }).success).toBe(true);
    expect(EVENT_PAYLOADS['plan/amended'].safeParse({ version: 2, reason: 'missed work', diff: {}, hash: 'h', plan: { nodes: [] } }).success).toBe(true);
  });

  it('leaves a tool result meta open for the source details a tool adds', async () => {
    const meta = { outcome: 'ok' as const, truncated: false, originalLength: 3, url: 'https://example.org/', status: 200 };
    await log.append({ type: 'tool/result', nodeId: 'a', payload: { toolCallId: 'c', name: 'web_fetch', content: 'abc', isError: false, meta } });
    const [result] = await log.read({ types: ['tool/result'] });
    expect(result?.payload.meta).toEqual({ ...meta, source: 'https://example.org/', contentType: 'text/plain', provider: 'dagent' });
  });

  it('fills the uniform fields of a tool result the writer left out: source from the arguments, the defaults otherwise', async () => {
    const meta = { outcome: 'error' as const, args: { command: 'npm test' } };
    await log.append({ type: 'tool/result', nodeId: 'a', payload: { toolCallId: 'c', name: 'run_command', content: 'exit code 1', isError: true, meta } });
    const [result] = await log.read({ types: ['tool/result'] });
    expect(result?.payload.meta).toEqual({ ...meta, truncated: false, originalLength: 11, source: 'npm test', contentType: 'text/plain', provider: 'dagent' });
  });

  it('warms its checks only while the caller says it is worth it, and checks the same afterwards', async () => {
    let asked = 0;
    warmEventChecks(() => ++asked <= 3);
    // Three types warmed; the fourth question was the last one asked.
    expect(asked).toBe(4);

    asked = 0;
    warmEventChecks(() => (asked += 1) > 0);
    expect(asked).toBe(EVENT_TYPES.length);
    await expect(appendUnchecked({ type: 'node/started', nodeId: 'a', payload: { attempt: 1, worker: 'w-1' } })).rejects.toThrow(/Unrecognized key: "worker"/);
    await log.append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
    expect((await log.read({ types: ['node/started'] })).map((event) => event.payload)).toEqual([{ attempt: 1 }]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, createRun, type Store } from '../../../engine/index.js';
import { MAX_PARALLEL_TOOL_CALLS, MAX_TOOL_CALLS_PER_RESPONSE, executeToolCalls } from '../../../engine/agent/execute-tool-calls.js';
import { createNonInteractiveApprover } from '../../../tools/index.js';
import { FakeTools, toolOk } from '../../helpers/fake-tools.js';
import { openTempStore } from '../../helpers/temp-store.js';

/**
 * A model that answers with thousands of tool calls in one response: only the first
 * `MAX_TOOL_CALLS_PER_RESPONSE` run, a few at a time; every other call gets a clear refusal as
 * its result, so the conversation stays well formed and the model knows what to do next.
 */

let store: Store;
let cleanup: () => Promise<void>;
let runId: string;

beforeEach(async () => {
  ({ store, cleanup } = await openTempStore());
  runId = (await createRun(store.db, { task: 'many calls', workspace: '/w', mode: 'react' })).id;
});
afterEach(async () => cleanup());

describe('tool calls per response', () => {
  it('runs at most the cap, a few at a time, and refuses the rest with a result each', async () => {
    let running = 0;
    let mostAtOnce = 0;
    const tools = new FakeTools({
      probe: async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        // Stays running across a turn of the event loop, so the calls of one batch overlap (no clock involved).
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        return toolOk('probed');
      },
    });
    const session = await Session.open(new EventLog(store.db, runId), 'react');
    const calls = Array.from({ length: 500 }, (_, index) => ({ id: `call-${index}`, name: 'probe', args: { index } }));

    const results = await executeToolCalls({
      calls,
      tools,
      session,
      context: { runId, nodeId: 'react', workspace: '/w', approver: createNonInteractiveApprover() },
      position: { turn: 1, step: 1 },
      signal: new AbortController().signal,
      batchTimeoutMs: 60_000,
    });

    expect(tools.calls).toHaveLength(MAX_TOOL_CALLS_PER_RESPONSE);
    expect(mostAtOnce).toBeLessThanOrEqual(MAX_PARALLEL_TOOL_CALLS);
    expect(results).toHaveLength(500);
    expect(results.map((event) => event.payload.toolCallId)).toEqual(calls.map((call) => call.id));
    const refused = results.filter((event) => event.payload.meta.outcome === 'refused');
    expect(refused).toHaveLength(500 - MAX_TOOL_CALLS_PER_RESPONSE);
    expect(refused[0]!.payload).toMatchObject({
      isError: true,
      content: `refused: this response made 500 tool calls and at most ${MAX_TOOL_CALLS_PER_RESPONSE} run per response; this one did not run. Make the calls still needed in your next response, ${MAX_TOOL_CALLS_PER_RESPONSE} or fewer at a time`,
    });
    session.close();
  });
});

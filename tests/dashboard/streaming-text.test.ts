import { describe, expect, it, vi } from 'vitest';
import { applyEvents, createDashboardState, plainText, renderScreen } from '../../dashboard/index.js';
import {
  Session,
  SystemPrompt,
  createRun,
  emptyRunView,
  followRun,
  openDatabase,
  runAgent,
  runLog,
  type ModelProvider,
  type SessionEvent,
  type StreamPart,
} from '../../engine/index.js';
import { contractStores } from '../helpers/contract-stores.js';
import { FakeTools } from '../helpers/fake-tools.js';

/** A model that streams the first half of its answer, then waits until the test lets it finish. */
function gatedModel(first: readonly string[], rest: readonly string[]): { provider: ModelProvider; finish: () => void } {
  let finish!: () => void;
  const gate = new Promise<void>((resolve) => (finish = resolve));
  const provider: ModelProvider = {
    id: 'gated',
    contextWindow: () => 100_000,
    async *stream(): AsyncIterable<StreamPart> {
      for (const text of first) yield { type: 'text', text };
      await gate;
      for (const text of rest) yield { type: 'text', text };
      yield { type: 'usage', usage: { input: 100, output: 20, cacheHit: 0, reasoning: 0 } };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return { provider, finish };
}

describe.each(contractStores())('a dashboard following a run from another connection ($name)', (factory) => {
  it.skipIf(!factory.available)("shows the model's text while it streams, before its message completes", async () => {
    const { store, cleanup } = await factory.open();
    const agentStore = await openDatabase(store.url);
    const stop = new AbortController();
    try {
      const run = await createRun(store.db, { task: 'rename send()', workspace: '/w', mode: 'plan' });
      const seen: SessionEvent[] = [];
      const follower = await followRun(store, run.id, { afterSeq: 0, signal: stop.signal, pollMs: 20, onEvents: (events) => seen.push(...events) });

      // The agent runs on its own connection, as in the process that runs the run.
      const { provider, finish } = gatedModel(['Reading ', 'the Channel ', 'interface ', 'first, '], ['then every ', 'implementation.']);
      const session = await Session.open(runLog(agentStore.db, run.id), 'edit-channel');
      const tools = new FakeTools({});
      const agent = runAgent({
        agent: 'node:edit-channel', session, prompt: new SystemPrompt(), provider, model: 'gated', tools,
        toolContext: { runId: run.id, nodeId: 'edit-channel', workspace: '/w', approver: { interactive: false, ask: async () => ({ decision: 'yes' }) } },
        instruction: 'Rename send() to deliver().', signal: stop.signal,
        streamText: { intervalMs: 0 },
      });

      const screen = (): string => {
        const state = applyEvents(createDashboardState(emptyRunView(run.id), { attached: false }), seen);
        return renderScreen(state, { width: 160, height: 24 }, { now: Date.now(), color: false }).lines.map(plainText).join('\n');
      };
      await vi.waitFor(() => expect(screen()).toContain('» Reading the Channel interface first, ▍'), { timeout: 5_000, interval: 20 });
      expect(seen.some((event) => event.type === 'assistant/message')).toBe(false);

      finish();
      await agent;
      await vi.waitFor(() => expect(seen.some((event) => event.type === 'assistant/message')).toBe(true), { timeout: 5_000, interval: 20 });
      const after = screen();
      expect(after).toContain('» Reading the Channel interface first, then every implementation.');
      expect(after).not.toContain('▍');
      await follower.stop();
    } finally {
      stop.abort();
      await agentStore.close();
      await cleanup();
    }
  });
});

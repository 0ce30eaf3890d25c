import { setTimeout as sleep } from 'node:timers/promises';
import type { KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeSteering, STEERING_FRESH_MS } from '../../../engine/agent/node-steering.js';
import { createRun, followRun, openDatabase, readEvents, runLog, tellNode, type RunFollower, type SessionEvent, type Store } from '../../../engine/index.js';
import { Session } from '../../../engine/session/session.js';
import { contractStores } from '../../helpers/contract-stores.js';

/** Waits (polling) until `check` holds, at most five seconds. */
async function until(what: string, check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 5_000) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * A running node heeds the words told to it from another process at its next step boundary. Two
 * handles of one store stand for two processes: the node's, and the one `dagent say` runs in.
 */
for (const backend of contractStores()) {
  describe.skipIf(!backend.available)(`node steering: ${backend.name}`, () => {
    let store: Store;
    let other: Store;
    let cleanup: () => Promise<void>;
    let statements: number;
    let runId: string;
    let session: Session;
    beforeEach(async () => {
      ({ store, cleanup } = await backend.open());
      other = await openDatabase(store.url);
      statements = 0;
      // The node's process, its statements counted as they answer (prepared reads and appends too).
      const counting: KyselyPlugin = { transformQuery: ({ node }) => node, transformResult: async ({ result }) => ((statements += 1), result) };
      const db = store.db.withPlugin(counting);
      runId = (await createRun(db, { task: 'steer', workspace: '/repo', mode: 'plan' })).id;
      const started = await runLog(db, runId).append({ type: 'node/started', nodeId: 'edit', payload: { attempt: 1 } });
      session = Session.startingAt(runLog(db, runId), started);
    });
    afterEach(async () => {
      await other.close();
      await cleanup();
    });

    /** The next step boundary, after the last one's look at the log has gone stale. */
    async function nextStep(step: number): Promise<number> {
      await sleep(STEERING_FRESH_MS + 10);
      return steering.deliverWords({ turn: 1, step });
    }
    let steering: NodeSteering;

    it('a word told from another process reaches the node at its next step', async () => {
      steering = new NodeSteering(session);
      expect(await nextStep(1)).toBe(0);

      const told = await tellNode(other.db, runId, 'edit', 'use tabs', 'ana');

      expect(await nextStep(2)).toBe(1);
      const delivered = await readEvents(store.db, runId, { nodeId: 'edit', types: ['user/message'] });
      expect(delivered.map((event) => [event.payload.content, event.sourceEventSeqs])).toEqual([['use tabs', [told.seq]]]);
      expect(await nextStep(3)).toBe(0);
    });

    it("nodes whose boundaries look at once share one read of the log, and each hears only its own words", async () => {
      const log = session.log;
      const others = await Promise.all(
        ['read-a', 'read-b', 'read-c'].map(async (nodeId) => Session.startingAt(log, await log.append({ type: 'node/started', nodeId, payload: { attempt: 1 } }))),
      );
      const told = await tellNode(other.db, runId, 'read-b', 'skip the tests', 'ana');
      const steerings = [session, ...others].map((each) => new NodeSteering(each));
      const before = statements;

      const delivered = await Promise.all(steerings.map((each, index) => each.deliverWords({ turn: 1, step: index + 1 })));

      expect(delivered).toEqual([0, 0, 1, 0]);
      // One shared read (the first node's, started at once) and one for the three that asked meanwhile; the word's delivery appends, then its own read.
      expect(statements - before).toBeLessThanOrEqual(4);
      const messages = await readEvents(store.db, runId, { types: ['user/message'] });
      expect(messages.map((event) => [event.nodeId, event.sourceEventSeqs])).toEqual([['read-b', [told.seq]]]);
    });

    it.skipIf(backend.name !== 'postgres')('while a follower listens, a step reads the log only after a write it may need to see (PostgreSQL)', async () => {
      const heard: SessionEvent[] = [];
      const stopping = new AbortController();
      const follower: RunFollower = await followRun({ db: session.log.db, dialect: 'postgres', url: store.url, ...(store.ownBackends === undefined ? {} : { ownBackends: store.ownBackends }) }, runId, {
        afterSeq: 0,
        signal: stopping.signal,
        onEvents: (events) => heard.push(...events),
      });
      try {
        steering = new NodeSteering(session);
        expect(await nextStep(1)).toBe(0);
        // This process's own appends of other kinds, and nothing from elsewhere: no read.
        await session.append({ type: 'assistant/message', payload: { content: 'thinking', toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'steer' } });
        const quiet = statements;
        expect(await nextStep(2)).toBe(0);
        expect(statements).toBe(quiet);

        const told = await tellNode(other.db, runId, 'edit', 'use tabs', 'ana');
        // The node hears of the insert by its notification (the follower's read of it shows it came).
        await until('the word heard', () => heard.some((event) => event.seq === told.seq));

        expect(await nextStep(3)).toBe(1);
        expect((await readEvents(store.db, runId, { nodeId: 'edit', types: ['user/message'] })).map((event) => event.sourceEventSeqs)).toEqual([[told.seq]]);
      } finally {
        await follower.stop();
      }
    });

    it.skipIf(backend.name !== 'postgres')("on a worker, whose watch hears only the run's control events, a quiet step reads nothing and a word told from elsewhere still arrives (PostgreSQL)", async () => {
      const heard: SessionEvent[] = [];
      // A worker's watch of the run: its cancel and end only (it listens on the control channel).
      const watch: RunFollower = await followRun({ db: session.log.db, dialect: 'postgres', url: store.url, ...(store.ownBackends === undefined ? {} : { ownBackends: store.ownBackends }) }, runId, {
        afterSeq: 0,
        types: ['run/cancel-requested', 'run/succeeded', 'run/failed', 'run/cancelled', 'run/paused'],
        signal: new AbortController().signal,
        onEvents: (events) => heard.push(...events),
      });
      try {
        steering = new NodeSteering(session);
        expect(await nextStep(1)).toBe(0);
        // Another worker's node's messages, and this node's own: nothing that can steer it, no read.
        await runLog(other.db, runId).append({ type: 'node/started', nodeId: 'read-x', payload: { attempt: 1 } });
        await session.append({ type: 'assistant/message', payload: { content: 'thinking', toolCalls: [], finishReason: 'stop', provider: 'scripted', model: 'steer' } });
        await sleep(100);
        const quiet = statements;
        expect(await nextStep(2)).toBe(0);
        expect(statements).toBe(quiet);

        const before = session.log.writes.markOfTypes(['node/told']);
        const told = await tellNode(other.db, runId, 'edit', 'use tabs', 'ana');
        // Heard on the control channel: the node's next boundary knows to read.
        await until('the word noted', () => session.log.writes.markOfTypes(['node/told']) !== before);
        expect(await nextStep(3)).toBe(1);
        expect((await readEvents(store.db, runId, { nodeId: 'edit', types: ['user/message'] })).map((event) => event.sourceEventSeqs)).toEqual([[told.seq]]);
      } finally {
        await watch.stop();
      }
    });

    /** A listening follower of the run in the node's process, as `dagent run` has. */
    async function listening(): Promise<{ heard: SessionEvent[]; stop: () => Promise<void> }> {
      const heard: SessionEvent[] = [];
      const follower = await followRun({ db: session.log.db, dialect: 'postgres', url: store.url, ...(store.ownBackends === undefined ? {} : { ownBackends: store.ownBackends }) }, runId, {
        afterSeq: 0,
        signal: new AbortController().signal,
        onEvents: (events) => heard.push(...events),
      });
      return { heard, stop: () => follower.stop() };
    }

    it.skipIf(backend.name !== 'postgres')('in a run nobody steers, a stage of nodes takes its first steps on one look at the run, until a word is told (PostgreSQL)', async () => {
      const follower = await listening();
      try {
        const log = session.log;
        const stage = await Promise.all(['read-a', 'read-b', 'read-c'].map(async (nodeId) => Session.startingAt(log, await log.append({ type: 'node/started', nodeId, payload: { attempt: 1 } }))));
        const before = statements;

        const delivered = await Promise.all([session, ...stage].map((each, index) => new NodeSteering(each).deliverWords({ turn: 1, step: index + 1 })));

        expect(delivered).toEqual([0, 0, 0, 0]);
        expect(statements - before).toBe(1);

        // A word told from elsewhere to a node that has not taken its first step yet, heard: that step reads its steering, and gets it.
        const late = Session.startingAt(log, await log.append({ type: 'node/started', nodeId: 'read-d', payload: { attempt: 1 } }));
        const told = await tellNode(other.db, runId, 'read-d', 'only the README', 'ana');
        await until('the word heard', () => follower.heard.some((event) => event.seq === told.seq));
        expect(await new NodeSteering(late).deliverWords({ turn: 1, step: 1 })).toBe(1);
      } finally {
        await follower.stop();
      }
    });

    it.skipIf(backend.name !== 'postgres')('a word told before the run was followed reaches its node at its first step (PostgreSQL)', async () => {
      // Told while no process of the run listened (the run had not started, or was paused).
      const told = await tellNode(other.db, runId, 'edit', 'keep the public names', 'ana');
      const follower = await listening();
      try {
        steering = new NodeSteering(session);
        expect(await steering.deliverWords({ turn: 1, step: 1 })).toBe(1);
        expect((await readEvents(store.db, runId, { nodeId: 'edit', types: ['user/message'] })).map((event) => event.sourceEventSeqs)).toEqual([[told.seq]]);
      } finally {
        await follower.stop();
      }
    });
  });
}

import { describe, expect, it } from 'vitest';
import { runSchedule, type SchedulableNode, type ScheduleMode } from '../../../engine/index.js';
import type { NodeStatus } from '../../../engine/scheduler/node-status.js';
import { ScheduleAmendError } from '../../../engine/scheduler/scheduler-errors.js';
import { startSchedule } from '../../../engine/scheduler/scheduler.js';
import { createHarness, node } from './schedule-harness.js';

/** SPEC §2.1: read A,B,C,D (parallel) → edit A → edit B ‖ edit C → edit D (after B) → run tests. */
const REFACTOR: readonly SchedulableNode[] = [
  node('read-a'),
  node('read-b'),
  node('read-c'),
  node('read-d'),
  node('edit-a', ['read-a', 'read-b', 'read-c', 'read-d'], ['src/a.ts']),
  node('edit-b', ['edit-a'], ['src/b.ts']),
  node('edit-c', ['edit-a'], ['src/c.ts']),
  node('edit-d', ['edit-b'], ['src/d.ts']),
  node('test', ['edit-c', 'edit-d']),
];
const REFACTOR_LATENCY: Record<string, number> = { 'read-a': 10, 'read-b': 20, 'read-c': 15, 'read-d': 5, 'edit-a': 30, 'edit-b': 20, 'edit-c': 50, 'edit-d': 10, test: 40 };

function startTimes(executions: readonly { nodeId: string; start: number }[]): Record<string, number> {
  return Object.fromEntries(executions.map((execution) => [execution.nodeId, execution.start]));
}

describe('runSchedule on the refactor shape', () => {
  it.each<[ScheduleMode, Record<string, number>, number]>([
    // eager: edit-d starts when edit-b finishes, while edit-c still runs
    ['eager', { 'read-a': 0, 'read-b': 0, 'read-c': 0, 'read-d': 0, 'edit-a': 20, 'edit-b': 50, 'edit-c': 50, 'edit-d': 70, test: 100 }, 140],
    // batch: edit-d waits for the whole edit-b ‖ edit-c batch
    ['batch', { 'read-a': 0, 'read-b': 0, 'read-c': 0, 'read-d': 0, 'edit-a': 20, 'edit-b': 50, 'edit-c': 50, 'edit-d': 100, test: 110 }, 150],
  ])('%s mode starts each node when its rule allows', async (mode, expectedStarts, expectedEnd) => {
    const harness = createHarness({ latency: (id) => REFACTOR_LATENCY[id]! });
    const result = await harness.clock.run(runSchedule({ nodes: REFACTOR, mode, concurrency: 8, execute: harness.execute, onTransitions: harness.onTransitions }));
    expect(result.status).toBe('succeeded');
    expect(startTimes(harness.executions)).toEqual(expectedStarts);
    expect(harness.clock.now).toBe(expectedEnd);
    expect(result.nodes.get('test')).toEqual({ status: 'succeeded', attempts: 1, result: 'test done' });
  });

  it('records start and finish order in eager mode', async () => {
    const harness = createHarness({ latency: (id) => REFACTOR_LATENCY[id]! });
    await harness.clock.run(runSchedule({ nodes: REFACTOR, concurrency: 8, execute: harness.execute }));
    expect(harness.order.slice(8)).toEqual([
      'start edit-a', 'finish edit-a', 'start edit-b', 'start edit-c', 'finish edit-b', 'start edit-d', 'finish edit-d', 'finish edit-c', 'start test', 'finish test',
    ]);
  });

  it('stores each transition in causal order, and a start before the attempt gets past its barrier', async () => {
    const harness = createHarness({ latency: (id) => REFACTOR_LATENCY[id]! });
    const writes: string[][] = [];
    const onTransitions = async (changes: readonly { nodeId: string; kind: string }[]): Promise<void> => {
      writes.push(changes.map((change) => `${change.nodeId}:${change.kind}`));
      for (const change of changes) harness.timeline.push(`persist ${change.nodeId}:${change.kind}`);
    };
    await harness.clock.run(runSchedule({ nodes: REFACTOR, concurrency: 8, execute: harness.execute, onTransitions }));
    const at = (entry: string): number => harness.timeline.indexOf(entry);
    for (const { id, dependsOn } of REFACTOR) {
      expect(at(`persist ${id}:started`)).toBeLessThan(at(`stored ${id}`));
      expect(at(`stored ${id}`)).toBeLessThan(at(`finish ${id}`));
      for (const dependency of dependsOn) expect(at(`persist ${dependency}:succeeded`)).toBeLessThan(at(`persist ${id}:ready`));
    }
    // The four reads become ready and start in one write.
    expect(writes[0]).toEqual(['read-a:ready', 'read-b:ready', 'read-c:ready', 'read-d:ready', 'read-a:started', 'read-b:started', 'read-c:started', 'read-d:started']);
  });

  it('groups what happens during a slow write into the next write', async () => {
    const harness = createHarness({ latency: () => 0 });
    const writes: string[][] = [];
    const onTransitions = async (changes: readonly { nodeId: string; kind: string }[]): Promise<void> => {
      writes.push(changes.map((change) => `${change.nodeId}:${change.kind}`));
      await harness.clock.sleep(5);
    };
    const nodes = [node('a'), node('b'), node('c', ['a', 'b'])];
    const result = await harness.clock.run(runSchedule({ nodes, concurrency: 2, execute: harness.execute, onTransitions }));
    expect(result.status).toBe('succeeded');
    expect(writes).toEqual([
      ['a:ready', 'b:ready', 'a:started', 'b:started'],
      ['a:succeeded', 'b:succeeded', 'c:ready', 'c:started'],
      ['c:succeeded'],
    ]);
    // The schedule settles only once the last write is done.
    expect(harness.clock.now).toBe(15);
  });
});

describe('when more nodes are ready than slots are free', () => {
  // Three short side tasks listed first, then a short node that a long one waits for.
  const nodes = [node('lint'), node('docs'), node('changelog'), node('edit-api'), node('migrate-callers', ['edit-api'])];
  const cost: Record<string, number> = { lint: 10, docs: 10, changelog: 10, 'edit-api': 10, 'migrate-callers': 50 };

  it('starts the node with the costliest work ahead of it first, and finishes sooner than in list order', async () => {
    const ranked = createHarness({ latency: (id) => cost[id]! });
    await ranked.clock.run(runSchedule({ nodes, concurrency: 2, costOf: (n) => cost[n.id]!, execute: ranked.execute }));
    const listed = createHarness({ latency: (id) => cost[id]! });
    await listed.clock.run(runSchedule({ nodes, concurrency: 2, costOf: () => 0, execute: listed.execute }));

    expect(startTimes(ranked.executions)).toEqual({ 'edit-api': 0, lint: 0, 'migrate-callers': 10, docs: 10, changelog: 20 });
    expect(ranked.clock.now).toBe(60);
    // Equal costs keep the list's order: the long chain queues behind the side tasks.
    expect(startTimes(listed.executions)).toEqual({ lint: 0, docs: 0, changelog: 10, 'edit-api': 10, 'migrate-callers': 20 });
    expect(listed.clock.now).toBe(70);
  });

  it('counts each node as 1 without costs: the head of the longest chain goes first, equal ones in the order they became ready', async () => {
    const harness = createHarness({ latency: () => 10 });
    await harness.clock.run(runSchedule({ nodes, concurrency: 1, execute: harness.execute }));

    expect(harness.executions.map((execution) => execution.nodeId)).toEqual(['edit-api', 'lint', 'docs', 'changelog', 'migrate-callers']);
  });

  it('ranks the nodes an amendment adds with the others', async () => {
    const harness = createHarness({ latency: (id) => cost[id] ?? 10 });
    const schedule = startSchedule({ nodes: [node('gate'), ...nodes.map((n) => node(n.id, [...n.dependsOn, 'gate']))], concurrency: 1, costOf: (n) => cost[n.id] ?? 10, execute: harness.execute });
    let amended: Promise<unknown> | undefined;
    await harness.clock.run(schedule.result, {
      onIdle: (now) => {
        if (now !== 0 || amended !== undefined) return;
        // While "gate" runs, a long follow-up is added after "docs": now it leads the costliest chain.
        amended = schedule.amend(async (snapshot) => ({ nodes: [...snapshot.nodes, node('docs-site', ['docs'])] }));
      },
    });
    await expect(amended).resolves.toBe('applied');

    expect(harness.executions.map((execution) => execution.nodeId).slice(0, 3)).toEqual(['gate', 'edit-api', 'migrate-callers']);
    expect(harness.executions.map((execution) => execution.nodeId)[3]).toBe('docs');
  });
});

describe('failures', () => {
  it('skips every dependent of a failed node and never starts them', async () => {
    const harness = createHarness({ outcome: (id) => (id === 'edit-a' ? { status: 'failed', error: 'type error', retryable: false } : { status: 'succeeded', result: 'ok' }) });
    const result = await harness.clock.run(runSchedule({ nodes: REFACTOR, concurrency: 8, execute: harness.execute, onTransitions: harness.onTransitions }));
    expect(result.status).toBe('failed');
    const statuses = Object.fromEntries([...result.nodes].map(([id, report]) => [id, report.status]));
    expect(statuses).toEqual({ 'read-a': 'succeeded', 'read-b': 'succeeded', 'read-c': 'succeeded', 'read-d': 'succeeded', 'edit-a': 'failed', 'edit-b': 'skipped', 'edit-c': 'skipped', 'edit-d': 'skipped', test: 'skipped' });
    expect(result.nodes.get('edit-a')).toEqual({ status: 'failed', attempts: 1, error: 'type error' });
    expect(harness.executions.map((execution) => execution.nodeId)).not.toContain('edit-b');
    const skipped = harness.transitions().filter((change) => change.kind === 'skipped');
    expect(skipped.map((change) => change.kind === 'skipped' && `${change.nodeId}<${change.blockedBy}`)).toEqual(['edit-b<edit-a', 'edit-c<edit-a', 'edit-d<edit-b', 'test<edit-c']);
  });

  it('retries with exponential backoff, then succeeds', async () => {
    const harness = createHarness({
      latency: () => 10,
      outcome: (id, attempt) => (attempt < 3 ? new Error(`flaky ${attempt}`) : { status: 'succeeded', result: `${id} ok` }),
    });
    const retry = { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1_000, jitter: 0 };
    const result = await harness.clock.run(
      runSchedule({ nodes: [node('a')], concurrency: 1, execute: harness.execute, onTransitions: harness.onTransitions, retry, sleep: harness.clock.sleep }),
    );
    expect(result.nodes.get('a')).toEqual({ status: 'succeeded', attempts: 3, result: 'a ok' });
    // attempt 1: 0–10, backoff 100; attempt 2: 110–120, backoff 200; attempt 3: 320–330
    expect(harness.executions.map((execution) => [execution.attempt, execution.start])).toEqual([[1, 0], [2, 110], [3, 320]]);
    expect(harness.kinds()).toEqual(['a:ready', 'a:started', 'a:retried', 'a:started', 'a:retried', 'a:started', 'a:succeeded']);
    const retried = harness.transitions().filter((change) => change.kind === 'retried');
    expect(retried.map((change) => change.kind === 'retried' && [change.attempts, change.delayMs, change.error])).toEqual([[1, 100, 'flaky 1'], [2, 200, 'flaky 2']]);
  });

  it('fails a node when its attempts run out, and does not retry a non-retryable failure', async () => {
    const harness = createHarness({ outcome: (id) => ({ status: 'failed', error: `${id} broke`, retryable: id === 'flaky' }) });
    const result = await harness.clock.run(
      runSchedule({ nodes: [node('flaky'), node('red-tests')], concurrency: 2, execute: harness.execute, retry: { maxAttempts: 2, baseDelayMs: 5, jitter: 0 }, sleep: harness.clock.sleep }),
    );
    expect(result.nodes.get('flaky')).toEqual({ status: 'failed', attempts: 2, error: 'flaky broke' });
    expect(result.nodes.get('red-tests')).toEqual({ status: 'failed', attempts: 1, error: 'red-tests broke' });
  });
});

describe('write locks', () => {
  it('serializes nodes whose writes overlap and runs the others alongside', async () => {
    const harness = createHarness({ latency: () => 10 });
    const nodes = [node('one', [], ['src/a.ts']), node('two', [], ['src/*.ts']), node('docs', [], ['docs/x.md']), node('three', [], ['SRC/A.ts'])];
    await harness.clock.run(runSchedule({ nodes, concurrency: 4, execute: harness.execute }));
    expect(startTimes(harness.executions)).toEqual({ one: 0, docs: 0, two: 10, three: 20 });
  });
});

describe('cancellation', () => {
  it('aborts running nodes, cancels queued ones and leaves pending ones pending', async () => {
    const harness = createHarness({ latency: (id) => ({ a: 20, c: 50 })[id] ?? 10 });
    const controller = new AbortController();
    const nodes = [node('a'), node('b', ['a']), node('c'), node('queued')];
    const run = runSchedule({ nodes, concurrency: 2, signal: controller.signal, execute: harness.execute, onTransitions: harness.onTransitions });
    void harness.clock.sleep(15).then(() => controller.abort('user pressed Ctrl-C'));
    const result = await harness.clock.run(run);
    const statuses = Object.fromEntries([...result.nodes].map(([id, report]) => [id, report.status]));
    expect(result.status).toBe('cancelled');
    expect(statuses).toEqual({ a: 'cancelled', b: 'pending', c: 'cancelled', queued: 'cancelled' });
    expect(harness.executions.map((execution) => [execution.nodeId, execution.aborted, execution.end])).toEqual([['a', true, 15], ['c', true, 15]]);
    const cancelled = harness.transitions().filter((change) => change.kind === 'cancelled');
    expect(cancelled.map((change) => change.kind === 'cancelled' && `${change.nodeId}: ${change.reason}`).sort()).toEqual([
      'a: user pressed Ctrl-C',
      'c: user pressed Ctrl-C',
      'queued: run cancelled before the node started',
    ]);
  });

  it('starts nothing when the signal is already aborted', async () => {
    const harness = createHarness({});
    const result = await harness.clock.run(runSchedule({ nodes: REFACTOR, concurrency: 2, signal: AbortSignal.abort(), execute: harness.execute }));
    expect(result.status).toBe('cancelled');
    expect(harness.executions).toEqual([]);
    expect([...result.nodes.values()].every((report) => report.status === 'pending')).toBe(true);
  });
});

describe('resume', () => {
  it('never re-runs succeeded nodes and restarts everything else from pending', async () => {
    const harness = createHarness({ latency: () => 10 });
    const initialStatus = new Map<string, NodeStatus>([
      ['read-a', 'succeeded'], ['read-b', 'succeeded'], ['read-c', 'succeeded'], ['read-d', 'succeeded'],
      ['edit-a', 'succeeded'], ['edit-b', 'running'], ['edit-c', 'failed'], ['edit-d', 'cancelled'], ['test', 'skipped'],
    ]);
    const initialAttempts = new Map([['edit-b', 1], ['edit-c', 3]]);
    const result = await harness.clock.run(
      runSchedule({ nodes: REFACTOR, concurrency: 4, execute: harness.execute, onTransitions: harness.onTransitions, initialStatus, initialAttempts }),
    );
    expect(result.status).toBe('succeeded');
    expect(harness.executions.map((execution) => [execution.nodeId, execution.attempt])).toEqual([['edit-b', 2], ['edit-c', 4], ['edit-d', 1], ['test', 1]]);
    expect(harness.batches[0]!.map((change) => `${change.nodeId}:${change.kind}:${change.from}`)).toEqual([
      'edit-b:reset:running', 'edit-c:reset:failed', 'edit-d:reset:cancelled', 'test:reset:skipped',
      'edit-b:ready:pending', 'edit-c:ready:pending', 'edit-b:started:ready', 'edit-c:started:ready',
    ]);
  });
});

describe('amend', () => {
  it('adds a node and rewires a pending node while the schedule runs', async () => {
    const harness = createHarness({ latency: (id) => ({ a: 30, e: 20 })[id] ?? 10 });
    const nodes = [node('a', [], ['src/a.ts']), node('test', ['a'])];
    const schedule = startSchedule({ nodes, concurrency: 2, execute: harness.execute, onTransitions: harness.onTransitions });
    let amended: Promise<unknown> | undefined;
    await harness.clock.run(schedule.result, {
      onIdle: (now) => {
        if (now !== 0 || amended !== undefined) return;
        // "a" reports missed work: file E must change before the tests run.
        amended = schedule.amend(async (snapshot) => {
          expect(snapshot.statuses.get('a')).toBe('running');
          return { nodes: [...snapshot.nodes.filter((n) => n.id !== 'test'), node('e', ['a'], ['src/e.ts']), node('test', ['a', 'e'])] };
        });
      },
    });
    await expect(amended).resolves.toBe('applied');
    expect(startTimes(harness.executions)).toEqual({ a: 0, e: 30, test: 50 });
    expect([...(await schedule.result).nodes.keys()]).toEqual(['a', 'e', 'test']);
  });

  it('sends a ready node waiting for a slot back to pending when it gains a dependency', async () => {
    const harness = createHarness({ latency: (id) => (id === 'a' ? 30 : 10) });
    const schedule = startSchedule({ nodes: [node('a'), node('test')], concurrency: 1, execute: harness.execute, onTransitions: harness.onTransitions });
    let amended: Promise<unknown> | undefined;
    await harness.clock.run(schedule.result, {
      onIdle: (now) => {
        if (now !== 0 || amended !== undefined) return;
        amended = schedule.amend(async (snapshot) => {
          expect(snapshot.statuses.get('test')).toBe('ready');
          return { nodes: [node('a'), node('e', ['a']), node('test', ['e'])] };
        });
      },
    });
    await expect(amended).resolves.toBe('applied');
    expect(harness.executions.map((execution) => [execution.nodeId, execution.start])).toEqual([['a', 0], ['e', 30], ['test', 40]]);
    expect(harness.kinds().filter((kind) => kind.startsWith('test:'))).toEqual(['test:ready', 'test:reset', 'test:ready', 'test:started', 'test:succeeded']);
  });

  it('stops the schedule when the failure hook throws', async () => {
    const harness = createHarness({ outcome: (id) => (id === 'b' ? { status: 'failed', error: 'b broke', retryable: false } : { status: 'succeeded', result: 'ok' }) });
    const plannerDown = new Error('planner unavailable');
    const run = runSchedule({
      nodes: [node('a'), node('b'), node('c', ['b'])],
      concurrency: 2,
      execute: harness.execute,
      onNodeFailed: async () => {
        throw plannerDown;
      },
    });
    await expect(harness.clock.run(run)).rejects.toBe(plannerDown);
    expect(harness.executions.map((execution) => execution.nodeId).sort()).toEqual(['a', 'b']);
  });

  it('refuses to rewire a node that already succeeded and goes on unchanged', async () => {
    const harness = createHarness({ latency: (id) => (id === 'b' ? 30 : 10) });
    const schedule = startSchedule({ nodes: [node('a'), node('b'), node('c', ['a', 'b'])], concurrency: 2, execute: harness.execute });
    let amended: Promise<unknown> | undefined;
    await harness.clock.run(schedule.result, {
      onIdle: (now) => {
        if (now === 10 && amended === undefined) {
          amended = schedule.amend(async (snapshot) => ({ nodes: snapshot.nodes.map((n) => (n.id === 'a' ? node('a', ['b']) : n)) }));
          amended.catch(() => undefined);
        }
      },
    });
    await expect(amended).rejects.toThrow(ScheduleAmendError);
    expect((await schedule.result).status).toBe('succeeded');
  });

  it('lets the failure hook replace a failed node before its dependents are skipped', async () => {
    const harness = createHarness({ outcome: (id) => (id === 'b' ? { status: 'failed', error: 'b broke', retryable: false } : { status: 'succeeded', result: 'ok' }) });
    const nodes = [node('a'), node('b', ['a']), node('test', ['b'])];
    const failures: string[] = [];
    const result = await harness.clock.run(
      runSchedule({
        nodes,
        concurrency: 2,
        execute: harness.execute,
        onTransitions: harness.onTransitions,
        onNodeFailed: async (failure, snapshot) => {
          failures.push(`${failure.nodeId}: ${failure.error}`);
          expect(snapshot.statuses.get('test')).toBe('pending');
          return { nodes: [node('a'), node('b-fix', ['a']), node('test', ['b-fix'])] };
        },
      }),
    );
    expect(failures).toEqual(['b: b broke']);
    expect(result.status).toBe('succeeded');
    expect(harness.executions.map((execution) => execution.nodeId)).toEqual(['a', 'b', 'b-fix', 'test']);
    expect(harness.kinds()).not.toContain('test:skipped');
  });

  it('restarts a failed node when the amendment asks for it', async () => {
    const harness = createHarness({ outcome: (id, attempt) => (id === 'b' && attempt === 1 ? { status: 'failed', error: 'b broke', retryable: false } : { status: 'succeeded', result: 'ok' }) });
    const result = await harness.clock.run(
      runSchedule({
        nodes: [node('b'), node('test', ['b'])],
        concurrency: 1,
        execute: harness.execute,
        onNodeFailed: async (_failure, snapshot) => ({ nodes: [node('hint'), ...snapshot.nodes.map((n) => (n.id === 'b' ? node('b', ['hint']) : n))], restart: ['b'] }),
      }),
    );
    expect(result.status).toBe('succeeded');
    expect(harness.executions.map((execution) => `${execution.nodeId}#${execution.attempt}`)).toEqual(['b#1', 'hint#1', 'b#2', 'test#1']);
  });
});

describe('persistence failures', () => {
  it('aborts running attempts, waits for them and rejects with the store error', async () => {
    const harness = createHarness({ latency: (id) => (id === 'slow' ? 100 : 10) });
    let calls = 0;
    const storeDown = new Error('database is locked');
    const onTransitions = async (): Promise<void> => {
      calls += 1;
      if (calls === 2) throw storeDown; // 1: both ready and started; 2: fast succeeded, after ready and started
    };
    const run = runSchedule({ nodes: [node('fast'), node('slow'), node('after', ['fast'])], concurrency: 2, execute: harness.execute, onTransitions });
    await expect(harness.clock.run(run)).rejects.toBe(storeDown);
    // "after" began in the write that failed: it never got past its barrier, and nothing ran after it.
    expect(harness.executions.map((execution) => [execution.nodeId, execution.aborted, execution.stored])).toEqual([
      ['fast', false, true],
      ['slow', true, true],
      ['after', true, false],
    ]);
    expect(calls).toBe(2);
  });
});

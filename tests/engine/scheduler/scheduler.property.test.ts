import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { runSchedule, type NodeTransition, type SchedulableNode, type ScheduleMode } from '../../../engine/index.js';
import { transitionNode, type NodeStatus } from '../../../engine/scheduler/node-status.js';
import { VirtualClock } from './virtual-clock.js';

const WRITE_PATTERNS = ['a.ts', 'b.ts', 'src/c.ts', 'src/*.ts', 'src/**', 'docs/d.md', 'SRC/C.ts'];
/** Concrete files: two writers conflict when some file here matches both (independent of the lock's own logic). */
const FILES = ['a.ts', 'b.ts', 'src/c.ts', 'src/f.ts', 'src/x/e.ts', 'docs/d.md'];

interface Dag {
  readonly nodes: readonly SchedulableNode[];
  readonly latency: readonly number[];
  readonly failAttempts: readonly number[];
  readonly concurrency: number;
  /** How long each write to the store takes (0: at once), so writes overlap node work and group up. */
  readonly storeLatency: number;
}

const dagArbitrary = (withFailures: boolean): fc.Arbitrary<Dag> =>
  fc.integer({ min: 1, max: 24 }).chain((size) =>
    fc.record({
      dependsOn: fc.tuple(...Array.from({ length: size }, (_, index) => fc.subarray(Array.from({ length: index }, (__, d) => d), { maxLength: Math.min(3, index) }))),
      writes: fc.array(fc.subarray(WRITE_PATTERNS, { maxLength: 2 }), { minLength: size, maxLength: size }),
      latency: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: size, maxLength: size }),
      // How many first attempts of each node fail (0 without failures).
      failAttempts: fc.array(withFailures ? fc.integer({ min: 0, max: 3 }) : fc.constant(0), { minLength: size, maxLength: size }),
      concurrency: fc.integer({ min: 1, max: 6 }),
      storeLatency: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 15 })),
    }).map(({ dependsOn, writes, latency, failAttempts, concurrency, storeLatency }) => ({
      nodes: dependsOn.map((deps, index) => ({ id: `n${index}`, dependsOn: deps.map((d) => `n${d}`), writes: writes[index]! })),
      latency,
      failAttempts,
      concurrency,
      storeLatency,
    })),
  );

function filesOf(node: SchedulableNode): Set<string> {
  return new Set(FILES.filter((file) => node.writes.some((pattern) => picomatch.isMatch(file, pattern, { nocase: true, dot: true }))));
}

/** Runs a DAG on a virtual clock and checks the scheduling invariants along the way. */
async function runAndCheck(dag: Dag, mode: ScheduleMode) {
  const clock = new VirtualClock();
  const byId = new Map(dag.nodes.map((node, index) => [node.id, { node, index, files: filesOf(node) }]));
  const log: string[] = [];
  const running = new Map<string, Set<string>>();
  const attempts = new Map<string, number>();
  const succeeded = new Set<string>();
  const violations: string[] = [];
  const statuses = new Map<string, NodeStatus>(dag.nodes.map((node) => [node.id, 'pending']));

  // Like a real node: the work starts at once; nothing lasting happens, and the attempt does not end, before its start is stored.
  const execute = async (nodeId: string, { signal, durable }: { signal: AbortSignal; durable: Promise<void> }) => {
    const { node, index, files } = byId.get(nodeId)!;
    const attempt = (attempts.get(nodeId) ?? 0) + 1;
    attempts.set(nodeId, attempt);
    for (const dependency of node.dependsOn) if (!succeeded.has(dependency)) violations.push(`${nodeId} started before ${dependency} succeeded`);
    if (running.size >= dag.concurrency) violations.push(`${nodeId} exceeded concurrency ${dag.concurrency}`);
    for (const [other, otherFiles] of running) {
      for (const file of files) if (otherFiles.has(file)) violations.push(`${nodeId} and ${other} both write ${file}`);
    }
    running.set(nodeId, files);
    log.push(`start ${nodeId}`);
    const stored = durable.then(() => {
      if (statuses.get(nodeId) !== 'running') violations.push(`${nodeId} passed its barrier while stored as ${statuses.get(nodeId)}`);
    });
    await Promise.all([clock.sleep(dag.latency[index]!, signal), stored]);
    running.delete(nodeId);
    if (attempt <= dag.failAttempts[index]!) return { status: 'failed' as const, error: `attempt ${attempt} failed` };
    succeeded.add(nodeId);
    return { status: 'succeeded' as const, result: nodeId };
  };

  const onTransitions = async (changes: readonly NodeTransition[]) => {
    const becomingReady = changes.some((change) => change.kind === 'ready');
    if (mode === 'batch' && becomingReady) {
      // A new batch forms only when the previous one is entirely over.
      const active = [...statuses].filter(([, status]) => status === 'ready' || status === 'running');
      const settledHere = new Set(changes.filter((change) => change.to !== 'ready' && change.to !== 'running').map((change) => change.nodeId));
      for (const [id] of active) if (!settledHere.has(id)) violations.push(`batch started while ${id} was still active`);
    }
    if (dag.storeLatency > 0) await clock.sleep(dag.storeLatency);
    for (const change of changes) {
      expect(change.from).toBe(statuses.get(change.nodeId));
      if (change.kind === 'started') {
        for (const dependency of byId.get(change.nodeId)!.node.dependsOn) {
          if (statuses.get(dependency) !== 'succeeded') violations.push(`${change.nodeId} stored as started before ${dependency} was stored as succeeded`);
        }
      }
      statuses.set(change.nodeId, transitionNode(change.from, change.to, change.nodeId));
    }
  };

  const result = await clock.run(
    runSchedule({ nodes: dag.nodes, mode, concurrency: dag.concurrency, execute, onTransitions, retry: { maxAttempts: 2, baseDelayMs: 7, jitter: 0 }, sleep: clock.sleep }),
  );
  return { result, violations, attempts, statuses };
}

describe.each<ScheduleMode>(['eager', 'batch'])('runSchedule properties (%s)', (mode) => {
  it('respects dependencies, runs each node once, holds the concurrency limit and never overlaps writers', async () => {
    await fc.assert(
      fc.asyncProperty(dagArbitrary(false), async (dag) => {
        const { result, violations, attempts, statuses } = await runAndCheck(dag, mode);
        expect(violations).toEqual([]);
        expect(result.status).toBe('succeeded');
        for (const node of dag.nodes) {
          expect(attempts.get(node.id)).toBe(1);
          expect(result.nodes.get(node.id)?.status).toBe('succeeded');
          expect(statuses.get(node.id)).toBe('succeeded');
        }
      }),
      { numRuns: 200 },
    );
  });

  it('with failing attempts: retries within budget, skips exactly the dependents of failures', async () => {
    await fc.assert(
      fc.asyncProperty(dagArbitrary(true), async (dag) => {
        const { result, violations, attempts, statuses } = await runAndCheck(dag, mode);
        expect(violations).toEqual([]);
        dag.nodes.forEach((node, index) => {
          const report = result.nodes.get(node.id)!;
          expect(statuses.get(node.id)).toBe(report.status);
          const depsOk = node.dependsOn.every((dependency) => result.nodes.get(dependency)!.status === 'succeeded');
          if (!depsOk) {
            expect(report.status).toBe('skipped');
            expect(attempts.get(node.id)).toBeUndefined();
            return;
          }
          const failures = dag.failAttempts[index]!;
          expect(report.status).toBe(failures >= 2 ? 'failed' : 'succeeded');
          expect(report.attempts).toBe(Math.min(failures + 1, 2));
        });
        const anyFailed = [...result.nodes.values()].some((report) => report.status !== 'succeeded');
        expect(result.status).toBe(anyFailed ? 'failed' : 'succeeded');
      }),
      { numRuns: 100 },
    );
  });
});

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Plan, PlanNode } from '../../../engine/index.js';
import { killRunningClis, spawnCli } from '../../helpers/crash-process.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { tempDir } from '../../helpers/temp-store.js';
import { approvedSmallRun, describeExit, runEvents } from './fleet-harness.js';

/**
 * A run whose nodes run on two `dagent worker` processes, scheduled by `run --workers` with
 * OTEL_EXPORTER_OTLP_ENDPOINT at a loopback collector: the collector gets one trace whose spans
 * nest run → node attempt → model and tool calls, the workers' nodes included (the workers have no
 * OpenTelemetry configuration: the scheduler follows the log they append to).
 */
const postgresUrl = inject('postgresUrl');
const TIMEOUT_MS = 120_000;

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}
interface OtlpRequest {
  resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
}

let root: { dir: string; cleanup: () => void };
let collector: LoopbackServer;

const look = (id: string): PlanNode => ({ id, kind: 'read', title: `Look around (${id})`, instructions: 'Say what you see.', reads: [], writes: [], dependsOn: [] });
const lookTurns = (id: string): unknown[] => [
  { latencyMs: 400, toolCalls: [{ id: `${id}-list`, name: 'list_files', args: {} }] },
  { latencyMs: 400, text: `${id} saw src/` },
];

beforeAll(async () => {
  root = tempDir('dagent-fleet-trace-');
  collector = await startLoopbackServer(...Array.from({ length: 100 }, () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{}' })));
});

afterAll(async () => {
  killRunningClis();
  await collector?.close();
  root?.cleanup();
});

describe.skipIf(postgresUrl === '')('traces of a run on two workers', () => {
  it('reach the collector as one trace nesting run → node attempts → model and tool calls', async () => {
    const ids = ['look-1', 'look-2', 'look-3', 'look-4'];
    const plan: Plan = { goal: 'Look four times', rationale: 'Independent looks.', nodes: ids.map(look) };
    const run = await approvedSmallRun(postgresUrl, root.dir, 'traced', plan, Object.fromEntries(ids.map((id) => [`node:${id}`, lookTurns(id)])), ['src/a.txt']);
    const workers = [0, 1].map(() => spawnCli(['worker', '--concurrency', '1', '--no-sandbox', ...run.flags], run.workspace, { timeLimitMs: TIMEOUT_MS }));
    const scheduler = spawnCli(['run', run.runId, '--workers', '--no-dashboard', '--no-sandbox', ...run.flags], run.workspace, {
      timeLimitMs: TIMEOUT_MS,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    });
    const exit = await scheduler.exited;
    for (const worker of workers) worker.child.kill('SIGTERM');
    await Promise.all(workers.map((worker) => worker.exited));
    expect(exit.code, describeExit(exit)).toBe(0);

    const claims = (await runEvents(run)).filter((event) => event.type === 'attempt/claimed');
    expect(new Set(claims.map((event) => event.payload.pid)).size, 'both workers ran nodes').toBe(2);

    const spans = collector.requests.filter((request) => request.path === '/v1/traces').flatMap((request) => (request.json as OtlpRequest).resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parent = (span: OtlpSpan): string => (span.parentSpanId ? (byId.get(span.parentSpanId)?.name ?? '(missing)') : '(root)');
    expect(spans.filter((span) => parent(span) === '(root)').map((span) => span.name)).toEqual(['dagent run']);
    const attempts = spans.filter((span) => span.name.startsWith('invoke_agent '));
    expect(attempts.map((span) => `${span.name} < ${parent(span)}`).sort()).toEqual(ids.map((id) => `invoke_agent ${id} < dagent run`));
    for (const attempt of attempts) {
      const children = spans.filter((span) => span.parentSpanId === attempt.spanId).map((span) => span.name.split(' ')[0]);
      expect(children.sort(), attempt.name).toEqual(['chat', 'chat', 'execute_tool']);
    }
    expect(spans.some((span) => parent(span) === '(missing)')).toBe(false);
  }, TIMEOUT_MS + 30_000);
});

import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../../helpers/crash-process.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * Live traces of a run that failed and was resumed, and of a `dagent react` run, through the
 * binary and a loopback OTLP/HTTP collector: the resumed run's two processes send every span once
 * (no span id twice), together exactly the spans `dagent trace --out` rebuilds; the react run's
 * model and tool calls arrive nested under its one agent's span, under its run span.
 */
const exec = promisify(execFile);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}
interface OtlpRequest {
  resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const spansOf = (requests: readonly OtlpRequest[]): OtlpSpan[] => requests.flatMap((request) => request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
const line = (span: OtlpSpan): string => `${span.spanId} ${span.parentSpanId ?? ''} ${span.name}`;

let dir: { dir: string; cleanup: () => void };
let collector: LoopbackServer;

const dagent = (workspace: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  exec(process.execPath, [DAGENT_BIN, '-w', workspace, ...args], {
    cwd: workspace,
    env: { ...process.env, NO_COLOR: '1', OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' },
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

const received = (from: number): OtlpSpan[] => spansOf(collector.requests.slice(from).filter((request) => request.path === '/v1/traces').map((request) => request.json as OtlpRequest));

beforeAll(async () => {
  dir = tempDir('dagent-otel-resume-');
  collector = await startLoopbackServer(...Array.from({ length: 100 }, () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{}' })));
});

afterAll(async () => {
  await collector?.close();
  dir?.cleanup();
});

describe('live traces', () => {
  it('of a run that failed and was resumed hold every span once, the same spans `dagent trace` rebuilds', async () => {
    const workspace = join(dir.dir, 'flaky');
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ nodeRetries: 0 }));
    // Fails until the user makes `ready` (a file the failed attempt made itself would be undone before it runs again).
    const flaky = { id: 'flaky', kind: 'command', title: 'fails once', instructions: '', command: 'test -f ready', dependsOn: [] };
    const after = { id: 'after', kind: 'command', title: 'then this', instructions: '', command: 'true', dependsOn: ['flaky'] };
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'fail once, then succeed', nodes: [flaky, after] }));
    const before = collector.requests.length;

    const first = await dagent(workspace, ['--approval', 'auto', '--no-sandbox', 'plan', '--from', 'plan.json', '--yes']);
    const runId = /run (r-[0-9a-f]+) failed/.exec(first.stdout)?.[1];
    expect(runId, first.stdout + first.stderr).toBeDefined();
    writeFileSync(join(workspace, 'ready'), '');
    const resumed = await dagent(workspace, ['--approval', 'auto', '--no-sandbox', 'resume', runId!]);
    expect(resumed.stdout).toContain(`run ${runId} succeeded`);

    const live = received(before);
    const ids = live.map((span) => span.spanId);
    expect(ids.length - new Set(ids).size, `span ids sent twice:\n${live.map(line).join('\n')}`).toBe(0);
    await dagent(workspace, ['trace', runId!, '--out', 'trace.json']);
    const rebuilt = spansOf([JSON.parse(readFileSync(join(workspace, 'trace.json'), 'utf8')) as OtlpRequest]);
    expect(live.map(line).sort()).toEqual(rebuilt.map(line).sort());
    const byId = new Map(live.map((span) => [span.spanId, span]));
    const resumedSpan = live.find((span) => span.name === 'dagent run (resumed)')!;
    expect(byId.get(resumedSpan.parentSpanId!)?.name).toBe('dagent run');
    const attempts = live.filter((span) => span.name.startsWith('invoke_agent '));
    expect(attempts.map((span) => `${span.name} < ${byId.get(span.parentSpanId!)?.name}`).sort()).toEqual([
      'invoke_agent after < dagent run (resumed)',
      'invoke_agent flaky < dagent run',
      'invoke_agent flaky < dagent run (resumed)',
    ]);
  }, 120_000);

  it('of `dagent react` nest its model and tool calls under its agent, under the run', async () => {
    const workspace = join(dir.dir, 'react');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'a.txt'), 'hello\n');
    const script = join(dir.dir, 'react.script.json');
    writeFileSync(script, JSON.stringify({ agents: { react: [{ toolCalls: [{ name: 'read_file', args: { path: 'a.txt' } }] }, { text: 'a.txt says hello' }] } }));
    const before = collector.requests.length;

    const result = await dagent(workspace, ['--approval', 'auto', '-m', `scripted:${script}`, 'react', 'what does a.txt say?']);
    expect(result.code, result.stderr).toBe(0);

    const spans = received(before);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(spans.map((span) => `${span.name.split(' ')[0]} < ${span.parentSpanId ? byId.get(span.parentSpanId)?.name : '(root)'}`).sort()).toEqual([
      'chat < invoke_agent react',
      'chat < invoke_agent react',
      'dagent < (root)',
      'execute_tool < invoke_agent react',
      'invoke_agent < dagent run',
    ]);
  }, 60_000);
});

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../../helpers/crash-process.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { NOTIFIER_TASK, notifierRun } from '../../helpers/notifier-run.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * OpenTelemetry traces of the demo's run through the binary: a loopback OTLP/HTTP collector
 * receives one trace nesting run → node attempt → model and tool calls, with the GenAI attributes
 * and the resource the OTEL_* variables set, and no prompt text; `dagent trace --out` rebuilds the
 * same spans (same ids) from the log alone; a dead collector does not fail the run.
 */
const exec = promisify(execFile);

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string; arrayValue?: unknown } }[];
}
interface OtlpRequest {
  resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const spansOf = (requests: readonly OtlpRequest[]): OtlpSpan[] => requests.flatMap((request) => request.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
const attribute = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : (value.stringValue ?? (value.intValue === undefined ? value.arrayValue : Number(value.intValue)));
};

let dir: { dir: string; cleanup: () => void };
let collector: LoopbackServer;
let runId: string;
let workspace: string;

beforeAll(async () => {
  dir = tempDir('dagent-otel-');
  collector = await startLoopbackServer(...Array.from({ length: 200 }, () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{}' })));
  ({ runId, workspace } = await notifierRun(dir.dir, {
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'dagent-under-test',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=ci',
  }));
}, 150_000);

afterAll(async () => {
  await collector?.close();
  dir?.cleanup();
});

describe('OpenTelemetry traces of a run', () => {
  it('reach the collector as one trace nesting run → node attempts → model and tool calls', () => {
    const requests = collector.requests.filter((request) => request.path === '/v1/traces').map((request) => request.json as OtlpRequest);
    expect(requests.length).toBeGreaterThan(0);
    const spans = spansOf(requests);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentName = (span: OtlpSpan): string => (span.parentSpanId === undefined || span.parentSpanId === '' ? '(root)' : (byId.get(span.parentSpanId)?.name ?? '(missing)'));
    const run = spans.filter((span) => parentName(span) === '(root)');
    expect(run.map((span) => span.name)).toEqual(['dagent run']);
    const attempts = spans.filter((span) => span.name.startsWith('invoke_agent '));
    expect(attempts.map((span) => attribute(span, 'dagent.node.id')).sort()).toEqual(['edit-channel', 'edit-digest', 'edit-email', 'edit-sms', 'edit-webhook', 'test']);
    for (const attempt of attempts) expect(parentName(attempt)).toBe('dagent run');
    const digest = attempts.find((span) => attribute(span, 'dagent.node.id') === 'edit-digest')!;
    const digestChildren = spans.filter((span) => span.parentSpanId === digest.spanId).map((span) => span.name.split(' ')[0]);
    expect(new Set(digestChildren)).toEqual(new Set(['chat', 'execute_tool', 'compaction']));
    expect(spans.filter((span) => span.name === 'replan')).toHaveLength(1);
    expect(spans.some((span) => parentName(span) === '(missing)')).toBe(false);
  });

  it('carry the GenAI attributes, the plan version, the resource of the OTEL_* variables, and no prompt text or arguments', () => {
    const requests = collector.requests.filter((request) => request.path === '/v1/traces').map((request) => request.json as OtlpRequest);
    const resource = requests[0]!.resourceSpans[0]!.resource.attributes;
    expect(resource).toEqual(expect.arrayContaining([
      { key: 'service.name', value: { stringValue: 'dagent-under-test' } },
      { key: 'deployment.environment', value: { stringValue: 'ci' } },
    ]));
    const spans = spansOf(requests);
    const chat = spans.find((span) => span.name.startsWith('chat ') && attribute(span, 'dagent.node.id') === 'edit-email')!;
    expect(attribute(chat, 'gen_ai.operation.name')).toBe('chat');
    expect(attribute(chat, 'gen_ai.request.model')).toEqual(expect.stringContaining('notifier.fast.script.json'));
    expect(attribute(chat, 'gen_ai.usage.input_tokens')).toBeGreaterThan(0);
    expect(attribute(chat, 'gen_ai.usage.output_tokens')).toBeGreaterThan(0);
    expect(attribute(chat, 'gen_ai.usage.cache_read.input_tokens')).toEqual(expect.any(Number));
    expect(attribute(chat, 'gen_ai.response.finish_reasons')).toEqual({ values: [expect.objectContaining({ stringValue: expect.any(String) })] });
    expect(attribute(chat, 'dagent.plan.version')).toBe(1);
    const webhook = spans.find((span) => span.name.startsWith('invoke_agent ') && attribute(span, 'dagent.node.id') === 'edit-webhook')!;
    expect(attribute(webhook, 'dagent.plan.version')).toBe(2);
    const text = JSON.stringify(spans);
    expect(text).not.toContain(NOTIFIER_TASK);
    expect(text).not.toContain('old_string');
    expect(text).not.toContain('gen_ai.tool.call.arguments');
  });

  it('are rebuilt from the log alone by `dagent trace --out`, with the same ids', async () => {
    const file = join(dir.dir, 'trace.json');
    const { stdout } = await exec(process.execPath, [DAGENT_BIN, '-w', workspace, 'trace', runId, '--out', file], { cwd: dir.dir });
    expect(stdout).toMatch(/^\d+ spans of run r-[0-9a-f]+ \(trace [0-9a-f]{32}\) written to /);
    const rebuilt = spansOf([JSON.parse(readFileSync(file, 'utf8')) as OtlpRequest]);
    const live = spansOf(collector.requests.filter((request) => request.path === '/v1/traces').map((request) => request.json as OtlpRequest));
    expect(rebuilt.map((span) => `${span.spanId} ${span.parentSpanId ?? ''} ${span.name}`).sort()).toEqual(live.map((span) => `${span.spanId} ${span.parentSpanId ?? ''} ${span.name}`).sort());
  });

  it('are sent by `dagent trace` to the endpoint as OTLP protobuf (the default protocol), and without one it says what to set', async () => {
    const before = collector.requests.length;
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
    const { stdout } = await exec(process.execPath, [DAGENT_BIN, '-w', workspace, 'trace', runId], { cwd: dir.dir, env });
    expect(stdout).toMatch(new RegExp(`^\\d+ spans of run ${runId} sent to ${collector.url}/v1/traces`));
    const sent = collector.requests.slice(before);
    expect(sent.map((request) => [request.path, request.headers['content-type']])).toEqual([['/v1/traces', 'application/x-protobuf']]);
    const bare = { ...process.env };
    for (const key of Object.keys(bare)) if (key.startsWith('OTEL_')) delete bare[key];
    const refused = await exec(process.execPath, [DAGENT_BIN, '-w', workspace, 'trace', runId], { cwd: dir.dir, env: bare }).then(() => ({ code: 0, stderr: '' }), (error: { code: number; stderr: string }) => error);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('no OTLP endpoint: set OTEL_EXPORTER_OTLP_ENDPOINT');
  });

  it('do not fail the run when the collector is dead (a closed port): the run says it goes on untraced', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const dead = tempDir('dagent-otel-dead-');
    try {
      const result = await notifierRun(dead.dir, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closedPort}` });
      expect(result.stdout).toMatch(/run r-[0-9a-f]+ succeeded · plan v2 · 6\/6 nodes succeeded/);
      expect(result.stderr).toContain(`the OTLP collector at http://127.0.0.1:${closedPort}/v1/traces does not answer; the run goes on untraced (\`dagent trace ${result.runId}\` sends its trace later)`);
      expect(result.stderr).not.toMatch(/ECONNREFUSED|Error:/);
    } finally {
      dead.cleanup();
    }
  }, 150_000);
});

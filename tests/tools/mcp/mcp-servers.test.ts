import { afterEach, describe, expect, it } from 'vitest';
import { LocalToolRuntime, McpServers } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';
import { expectPortable } from './portable-schema.js';
import { testServerSpec } from './test-server-spec.js';
import { isRunning } from '../../helpers/process-alive.js';

let servers: McpServers | undefined;
let bed: ToolTestBed | undefined;
afterEach(async () => {
  await servers?.stop();
  await bed?.cleanup();
  servers = undefined;
  bed = undefined;
});

async function startTracker(options: { timeoutMs?: number } = {}): Promise<{ runtime: LocalToolRuntime; bed: ToolTestBed }> {
  servers = new McpServers([testServerSpec('tracker', options)], { workspace: process.cwd() });
  const tools = await servers.start();
  bed = await openToolTestBed();
  return { runtime: new LocalToolRuntime({ approval: 'auto', tools }), bed };
}

describe('MCP servers over stdio', () => {
  it('starts nothing until asked, then lists the tools as <server>__<tool> with cleaned, portable schemas', async () => {
    servers = new McpServers([testServerSpec('tracker')], { workspace: process.cwd() });
    expect(servers.status()).toEqual([{ name: 'tracker', transport: 'stdio', state: 'idle', tools: [] }]);
    const tools = await servers.start();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'tracker__crash',
      'tracker__create_issue',
      'tracker__explode',
      'tracker__get_doc',
      'tracker__hang',
      'tracker__pid',
      'tracker__throw',
      'tracker__tree',
    ]);
    expect(servers.status()[0]).toMatchObject({ state: 'ready', tools: expect.arrayContaining([{ name: 'tracker__get_doc', mcpName: 'get-doc', risk: 'command', description: expect.any(String) }]) });
    const runtime = new LocalToolRuntime({ tools });
    for (const spec of runtime.specs()) expectPortable(spec.parameters);
    const createIssue = runtime.specs().find((spec) => spec.name === 'tracker__create_issue')!;
    expect(createIssue.parameters).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1 },
        assignee: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] },
        labels: { type: 'array', items: { type: 'string' } },
        priority: { enum: ['low', 'high'] },
        meta: { type: 'object', properties: { estimate: { type: 'object', properties: { hours: { type: 'integer', minimum: 1 } }, required: ['hours'] } } },
      },
      required: ['title', 'assignee'],
    });
    const tree = runtime.specs().find((spec) => spec.name === 'tracker__tree')!;
    expect(tree.description).toContain('Schema notes: root.children[]: recursive $ref #/definitions/Node cut here');
  });

  it('validates arguments against the server’s original schema before calling', async () => {
    const { runtime, bed } = await startTracker();
    const result = await bed.call(runtime, 'tracker__create_issue', { title: 'x', assignee: { login: 'Bob1' }, labels: null, extra: 1 });
    expect(result.meta.outcome).toBe('invalid-args');
    expect(result.content).toContain('- assignee.login: must match pattern "^[a-z]+$"');
    expect(result.content).toContain('- (arguments): must NOT have additional properties');
  });

  it('renders text, structured content and resources with their meta', async () => {
    const { runtime, bed } = await startTracker();
    const created = await bed.call(runtime, 'tracker__create_issue', { title: 'Login fails', assignee: { login: 'bob' }, labels: ['bug'] });
    expect(created.isError).toBe(false);
    expect(created.content).toContain('<external-content source="mcp" server="tracker" tool="create_issue" trust="untrusted">');
    expect(created.content).toContain('created issue "Login fails" for bob');
    expect(created.content).toContain('structured content:\n{\n  "id": 42,');
    expect(created.meta).toMatchObject({ provider: 'mcp:tracker', server: 'tracker', tool: 'create_issue', contentTypes: ['text'], structuredContent: { id: 42, title: 'Login fails', labels: ['bug'] } });

    const doc = await bed.call(runtime, 'tracker__get_doc', {});
    expect(doc.content).toContain('[resource docs://guide/intro (text/markdown)]\n# Intro\nRead me.');
    expect(doc.content).toContain('[resource link: more docs://guide/more (text/markdown)]');
    expect(doc.content).toContain('[image: image/png, 14 bytes, not shown]');
    expect(doc.meta.resources).toEqual([
      { uri: 'docs://guide/intro', mimeType: 'text/markdown', kind: 'text' },
      { uri: 'docs://guide/more', mimeType: 'text/markdown', kind: 'link' },
    ]);
  });

  it('turns a tool failure and a protocol error into recoverable tool errors', async () => {
    const { runtime, bed } = await startTracker();
    const failed = await bed.call(runtime, 'tracker__explode', {});
    expect(failed).toMatchObject({ isError: true, meta: { outcome: 'error' } });
    expect(failed.content).toMatch(/^error: the MCP tool reported a failure\n/);
    expect(failed.content).toContain('database is down');
    const thrown = await bed.call(runtime, 'tracker__throw', {});
    expect(thrown.content).toContain('error: MCP server tracker: throw failed');
    expect(thrown.content).toContain('the tracker refused the request');
    expect(thrown.meta.fatal).toBeUndefined();
  });

  it('reports a crash with the end of the server’s stderr, and starts the server again on the next call', async () => {
    const { runtime, bed } = await startTracker();
    const before = Number((await bed.call(runtime, 'tracker__pid', {})).content.match(/\n(\d+)\n/)![1]);
    const crashed = await bed.call(runtime, 'tracker__crash', {});
    expect(crashed.isError).toBe(true);
    expect(crashed.content).toMatch(/^error: MCP server tracker: crash failed: .*the server stopped \(stderr: test-server: fatal: out of memory\)/);
    const after = await bed.call(runtime, 'tracker__pid', {});
    expect(after.isError).toBe(false);
    expect(Number(after.content.match(/\n(\d+)\n/)![1])).not.toBe(before);
  });

  it('bounds a hung server by the tool timeout, and the server stays usable', async () => {
    const { runtime, bed } = await startTracker({ timeoutMs: 500 });
    const hung = await bed.call(runtime, 'tracker__hang', {});
    expect(hung.meta.outcome).toBe('timeout');
    expect(hung.content).toMatch(/^timeout: the call did not finish within 500 ms/);
    expect((await bed.call(runtime, 'tracker__pid', {})).isError).toBe(false);
  });

  it('keeps a server that fails to start out of the tools, says why, and starts the others', async () => {
    servers = new McpServers([testServerSpec('broken', { failStart: true }), testServerSpec('tracker')], { workspace: process.cwd() });
    const tools = await servers.start();
    expect(tools.every((tool) => tool.name.startsWith('tracker__'))).toBe(true);
    const [broken, tracker] = servers.status();
    expect(broken).toMatchObject({ name: 'broken', state: 'failed', tools: [] });
    expect(broken!.error).toContain('cannot open its database');
    expect(tracker!.state).toBe('ready');
  });

  it('gives a server that never answers its own startupTimeoutMs, and says so in words', async () => {
    const silent = { name: 'silent', transport: { kind: 'stdio' as const, command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], env: {} }, startupTimeoutMs: 300 };
    servers = new McpServers([silent], { workspace: process.cwd() });

    expect(await servers.start()).toEqual([]);

    expect(servers.status()[0]).toMatchObject({ name: 'silent', state: 'failed' });
    expect(servers.status()[0]!.error).toContain('did not answer within 0.3 s of its start (startupTimeoutMs in its settings gives it longer)');
  });

  it('stops the server processes at the end of the run', async () => {
    const { runtime, bed } = await startTracker();
    const pid = Number((await bed.call(runtime, 'tracker__pid', {})).content.match(/\n(\d+)\n/)![1]);
    expect(isRunning(pid)).toBe(true);
    await servers!.stop();
    expect(servers!.status()[0]!.state).toBe('stopped');
    for (let waited = 0; waited < 5_000 && isRunning(pid); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isRunning(pid)).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, runAgent, type ModelProvider, type Store, type ToolSpec } from '../../../engine/index.js';
import { createAnthropicProvider } from '../../../engine/model/anthropic-provider.js';
import { createOpenAICompatibleProvider } from '../../../engine/model/openai-compatible-provider.js';
import { createScriptedProvider } from '../../../engine/model/scripted-provider.js';
import { LocalToolRuntime, McpServers, createToolRuntime, type Tool } from '../../../tools/index.js';
import { openTempStore, tempDir } from '../../helpers/temp-store.js';
import { testServerSpec } from './test-server-spec.js';
import { expectPortable } from './portable-schema.js';

let servers: McpServers;
let mcpTools: Tool[];
let store: Store;
let cleanupStore: () => Promise<void>;
let workspace: string;
let cleanupDir: () => void;

beforeAll(async () => {
  servers = new McpServers([testServerSpec('tracker')], { workspace: process.cwd() });
  mcpTools = await servers.start();
  ({ store, cleanup: cleanupStore } = await openTempStore());
  ({ dir: workspace, cleanup: cleanupDir } = tempDir('dagent-mcp-node-'));
});
afterAll(async () => {
  await servers.stop();
  await cleanupStore();
  cleanupDir();
});

describe('MCP tools in a node', () => {
  it('a scripted node corrects its arguments, uses the tools it is allowed, and the log keeps every result with its meta', async () => {
    const runId = (await createRun(store.db, { task: 'file an issue', workspace, mode: 'react' })).id;
    const tools = createToolRuntime({ approval: 'auto', tools: mcpTools });
    const session = await Session.open(new EventLog(store.db, runId), 'file-issue');
    const provider = createScriptedProvider({
      script: {
        agents: {
          'node:file-issue': [
            { toolCalls: [{ name: 'tracker__create_issue', args: { title: 'Login fails', assignee: 'bob', labels: null } }] },
            { toolCalls: [{ name: 'tracker__create_issue', args: { title: 'Login fails', assignee: { login: 'bob' }, labels: null } }] },
            { toolCalls: [{ name: 'tracker__explode', args: {} }, { name: 'tracker__get_doc', args: {} }] },
            { toolCalls: [{ name: 'tracker__crash', args: {} }] },
            { text: 'Filed issue 42; the tracker crashed afterwards.' },
          ],
        },
      },
    });
    const allowed = ['read_file', 'tracker__create_issue', 'tracker__explode', 'tracker__get_doc'];
    const outcome = await runAgent({
      agent: 'node:file-issue',
      session,
      prompt: new SystemPrompt().addSection({ id: 'identity', text: 'You file issues.' }).addTools('all', () => tools.specs(allowed)),
      provider,
      model: 'scripted',
      tools,
      toolContext: { runId, nodeId: 'file-issue', workspace, approver: { interactive: false, ask: async () => ({ decision: 'no' }) }, allowedTools: allowed },
      instruction: 'File the login bug.',
      signal: new AbortController().signal,
    });
    expect(outcome.reason).toBe('done');
    const results = (await session.log.read({ types: ['tool/result'] })).map((event) => event.payload as { name: string; content: string; isError: boolean; meta: Record<string, unknown> });
    expect(results.map((result) => [result.name, result.meta.outcome])).toEqual([
      ['tracker__create_issue', 'invalid-args'],
      ['tracker__create_issue', 'ok'],
      ['tracker__explode', 'error'],
      ['tracker__get_doc', 'ok'],
      ['tracker__crash', 'not-allowed'],
    ]);
    expect(results[0]!.content).toContain('- assignee: must be object');
    expect(results[1]!.meta).toMatchObject({ provider: 'mcp:tracker', structuredContent: { id: 42, title: 'Login fails', labels: [] } });
    expect(results[3]!.meta).toMatchObject({ resources: [{ uri: 'docs://guide/intro' }, { uri: 'docs://guide/more' }] });
    expect(results[4]!.content).toContain('tool tracker__crash is not allowed in this node');
  });

  it('asks before an MCP call under suggest, like any risky tool', async () => {
    const runtime = new LocalToolRuntime({ tools: mcpTools });
    expect(runtime.policyFor('tracker__create_issue')).toBe('suggest');
    expect(new LocalToolRuntime({ tools: mcpTools, toolApproval: { tracker__pid: 'auto' } }).policyFor('tracker__pid')).toBe('auto');
  });
});

describe('the tool list every provider adapter sends', () => {
  const adapters: [string, (fetch: typeof globalThis.fetch) => ModelProvider][] = [
    ['openai', (fetch) => createOpenAICompatibleProvider({ id: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', contextWindow: () => 100_000, fetch })],
    ['deepseek', (fetch) => createOpenAICompatibleProvider({ id: 'deepseek', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', contextWindow: () => 100_000, reasoningRoundTrip: true, fetch })],
    ['anthropic', (fetch) => createAnthropicProvider({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', contextWindow: () => 100_000, fetch })],
  ];

  it.each(adapters)('%s: every MCP tool goes out with a valid name and a portable schema', async (_id, create) => {
    const bodies: Record<string, unknown>[] = [];
    const fetch = (async (_url: unknown, init?: { body?: unknown }) => {
      bodies.push(JSON.parse(String(init?.body)));
      return new Response('{"error":{"message":"recorded"}}', { status: 400, headers: { 'content-type': 'application/json' } });
    }) as typeof globalThis.fetch;
    const specs: ToolSpec[] = new LocalToolRuntime({ tools: mcpTools }).specs();
    const request = { agent: 'react' as const, model: 'm', system: 'sys', messages: [{ role: 'user' as const, seq: 1, source: 'task' as never, content: 'hi' }], tools: specs, parameters: {}, sessionId: 's' };
    await expect(async () => {
      for await (const _part of create(fetch).stream(request, new AbortController().signal)) void _part;
    }).rejects.toThrow();
    const sent = (bodies[0]!.tools as Record<string, unknown>[]).map((tool) => (tool.function ?? tool) as { name: string; parameters?: unknown; input_schema?: unknown });
    expect(sent).toHaveLength(specs.length);
    for (const tool of sent) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expectPortable(tool.parameters ?? tool.input_schema);
    }
  });
});

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli-harness.js';
import { startLoopbackServer, type LoopbackResponse, type LoopbackServer } from '../helpers/loopback-server.js';
import { tempDir } from '../helpers/temp-store.js';
import { deepSeekChunk, deepSeekUsage, openAIError, type Json } from '../engine/model/wire-samples.js';

/**
 * `dagent react` end to end against a loopback server speaking DeepSeek's streaming chat
 * completions: `reasoning_content` deltas, tool-call arguments split across chunks, `: keep-alive`
 * comments, usage with `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens` on the finish chunk.
 */

const SOURCE = 'export function foo(): number {\n  return 1;\n}\n\nexport const answer = foo() + 1;\n';
const RENAMED = 'export function bar(): number {\n  return 1;\n}\n\nexport const answer = foo() + 1;\n';
const TASK = 'Rename foo to bar in src/a.ts';
const KEEP_ALIVE = ': keep-alive' as const;
type SseItem = Json | typeof KEEP_ALIVE;
const MODEL = 'deepseek-chat';

/** DeepSeek SSE: `data:` lines, `: keep-alive` comments wherever `KEEP_ALIVE` stands, `[DONE]` at the end. */
function deepSeekSse(items: readonly SseItem[]): string {
  return [...items.map((item) => (item === KEEP_ALIVE ? `${KEEP_ALIVE}\n\n` : `data: ${JSON.stringify(item)}\n\n`)), 'data: [DONE]\n\n'].join('');
}

const chunk = (delta: Json, options: { finish?: string; usage?: Json } = {}): Json => deepSeekChunk(delta, { model: MODEL, ...options });
const reasoning = (text: string): Json => chunk({ content: null, reasoning_content: text });
const content = (text: string): Json => chunk({ content: text, reasoning_content: null });

/** One streamed assistant turn that thinks, then calls one tool with its arguments cut into `fragments`. */
function toolCallTurn(options: { thoughts: readonly string[]; id: string; name: string; fragments: readonly string[]; usage: Json }): LoopbackResponse {
  return {
    body: deepSeekSse([
      KEEP_ALIVE,
      chunk({ role: 'assistant', content: null, reasoning_content: '' }),
      ...options.thoughts.map(reasoning),
      chunk({ tool_calls: [{ index: 0, id: options.id, type: 'function', function: { name: options.name, arguments: '' } }] }),
      ...options.fragments.flatMap((fragment, index): SseItem[] => [
        chunk({ tool_calls: [{ index: 0, function: { arguments: fragment } }] }),
        ...(index === 0 ? [KEEP_ALIVE] : []),
      ]),
      chunk({ content: '', reasoning_content: null }, { finish: 'tool_calls', usage: options.usage }),
    ]),
    // Small pieces, so SSE lines and JSON documents arrive split across reads.
    splitEvery: 37,
  };
}

function answerTurn(options: { thoughts: readonly string[]; pieces: readonly string[]; usage: Json }): LoopbackResponse {
  return {
    body: deepSeekSse([
      chunk({ role: 'assistant', content: null, reasoning_content: '' }),
      ...options.thoughts.map(reasoning),
      KEEP_ALIVE,
      ...options.pieces.map(content),
      chunk({ content: '', reasoning_content: null }, { finish: 'stop', usage: options.usage }),
    ]),
    splitEvery: 53,
  };
}

const READ_CALL = 'call_00_Rd7yN9p1ZOMNpDLwd4MgAF';
const EDIT_CALL = 'call_00_Ed2kQ8x1WnB5vT3cL6pZyHsJ';
const THOUGHT_1 = ['I should', ' read src/a.ts', ' before editing it.'];
const THOUGHT_2 = ['The function', ' is declared on line 1;', ' rename the declaration.'];
const ANSWER = ['Renamed `foo` to `bar`', ' in src/a.ts.'];

function renameConversation(): LoopbackResponse[] {
  return [
    toolCallTurn({ thoughts: THOUGHT_1, id: READ_CALL, name: 'read_file', fragments: ['{"pa', 'th": "sr', 'c/a.ts"}'], usage: deepSeekUsage(0, 1200, 40) }),
    toolCallTurn({
      thoughts: THOUGHT_2,
      id: EDIT_CALL,
      name: 'edit_file',
      fragments: ['{"path": "src/a.ts", ', '"old_string": "export function fo', 'o()", "new_string": ', '"export function bar()"}'],
      usage: deepSeekUsage(1024, 400, 60),
    }),
    answerTurn({ thoughts: ['All done.'], pieces: ANSWER, usage: deepSeekUsage(1408, 200, 30) }),
  ];
}

interface WireMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  reasoning_content?: string;
}
interface WireBody {
  model: string;
  stream: boolean;
  stream_options: unknown;
  messages: WireMessage[];
  tools: { type: string; function: { name: string; description: string; parameters: unknown } }[];
}
interface LoggedEvent {
  seq: number;
  nodeId: string | null;
  step: number;
  type: string;
  payload: Record<string, unknown>;
}

let workspace: string;
let cleanup: () => void;
let server: LoopbackServer;

beforeEach(async () => {
  ({ dir: workspace, cleanup } = tempDir('dagent-react-deepseek-'));
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'a.ts'), SOURCE);
  server = await startLoopbackServer();
});
afterEach(async () => {
  await server.close();
  cleanup();
});

const cli = (args: readonly string[]): Promise<CliResult> => runCli(args, { cwd: workspace });
const react = (task: string, approval: 'auto' | 'suggest'): Promise<CliResult> =>
  cli(['react', task, '--model', `deepseek:${MODEL}`, '--base-url', server.url, '--approval', approval]);
const bodies = (): WireBody[] => server.requests.map((request) => request.json as WireBody);
const runIdOf = (result: CliResult): string => /^run (\S+) · deepseek:deepseek-chat$/m.exec(result.stderr)?.[1] ?? '';

async function logOf(runId: string): Promise<LoggedEvent[]> {
  const result = await cli(['log', runId, '--json']);
  expect(result.code).toBe(0);
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
}

/** True when `wanted` occurs in `types` in this order, other types allowed in between. */
function inOrder(types: readonly string[], wanted: readonly string[]): boolean {
  let at = 0;
  for (const type of types) if (type === wanted[at]) at += 1;
  return at === wanted.length;
}

describe('dagent react against a DeepSeek-style streaming server', () => {
  it('reads, edits and answers: the file changes, the answer streams, usage and cost close the run', async () => {
    server.enqueue(...renameConversation());
    const result = await react(TASK, 'auto');

    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(workspace, 'src', 'a.ts'), 'utf8')).toBe(RENAMED);
    // The transcript: each tool call on its own line, a blank line between turns, then the answer.
    expect(result.stdout).toMatch(/^  → read_file \{"path":"src\/a\.ts"\}\n\n/);
    expect(result.stdout.endsWith(`\n\n${ANSWER.join('')}\n`)).toBe(true);
    const runId = runIdOf(result);
    expect(runId).not.toBe('');
    // 4232 tokens in, 2432 of them cache hits (57 %), 130 out;
    // cost = (1800 misses · $0.30 + 2432 hits · $0.006 + 130 out · $1.20) / 1M ≈ $0.0007.
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(`run ${runId} · 3 steps · 4.2K in (57% cache hit) · 130 out · $0.0007`);

    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual(Array(3).fill('POST /chat/completions'));
    const [first, second, third] = bodies() as [WireBody, WireBody, WireBody];
    for (const body of [first, second, third]) {
      expect(body).toMatchObject({ model: MODEL, stream: true, stream_options: { include_usage: true } });
      expect(body.messages[0]?.role).toBe('system');
      expect(body.tools.map((tool) => tool.function.name)).toEqual(expect.arrayContaining(['read_file', 'edit_file', 'recall_history']));
    }
    // The static prefix (system prompt, tools, the task) is byte-identical across the calls: the prefix cache can hit.
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(second.messages.slice(0, 2)).toEqual(first.messages);
    expect(third.messages.slice(0, second.messages.length)).toEqual(second.messages);
    expect(first.messages[1]).toEqual({ role: 'user', content: TASK });

    // Second request: the read call with its reasoning sent back, and the file as the tool result.
    const [, , readTurn, readResult] = second.messages as [WireMessage, WireMessage, WireMessage, WireMessage];
    expect(second.messages).toHaveLength(4);
    expect(readTurn).toMatchObject({ role: 'assistant', content: null, reasoning_content: THOUGHT_1.join('') });
    expect(readTurn.tool_calls).toHaveLength(1);
    expect(readTurn.tool_calls?.[0]).toMatchObject({ id: READ_CALL, type: 'function', function: { name: 'read_file' } });
    expect(JSON.parse(readTurn.tool_calls?.[0]?.function.arguments ?? '')).toEqual({ path: 'src/a.ts' });
    expect(readResult).toMatchObject({ role: 'tool', tool_call_id: READ_CALL });
    expect(readResult.content).toContain('     1\texport function foo(): number {');
    expect(readResult.content).toContain('     5\texport const answer = foo() + 1;');

    // Third request: the edit call, its reasoning, and the edit's result.
    const [editTurn, editResult] = third.messages.slice(4) as [WireMessage, WireMessage];
    expect(third.messages).toHaveLength(6);
    expect(editTurn).toMatchObject({ role: 'assistant', content: null, reasoning_content: THOUGHT_2.join('') });
    expect(JSON.parse(editTurn.tool_calls?.[0]?.function.arguments ?? '')).toEqual({
      path: 'src/a.ts',
      old_string: 'export function foo()',
      new_string: 'export function bar()',
    });
    expect(editResult).toMatchObject({ role: 'tool', tool_call_id: EDIT_CALL });
    expect(editResult.content).toMatch(/^edited src\/a\.ts: replaced 1 occurrence/);

    // `inspect` rebuilds the last request from the log alone: the same system prompt, tools and messages.
    const inspected = await cli(['inspect', runId, '--node', 'react', '--json']);
    expect(inspected.code, inspected.stderr).toBe(0);
    const request = JSON.parse(inspected.stdout) as {
      step: number;
      system: string;
      tools: { name: string; description: string; parameters: unknown }[];
      messages: { role: string; content: string; toolCallId?: string; reasoning?: string; toolCalls?: { id: string; name: string; args: unknown; argsText?: string }[] }[];
      header: { provider: string; model: string; agent: string };
    };
    expect(request.step).toBe(3);
    expect(request.header).toMatchObject({ provider: 'deepseek', model: MODEL, agent: 'react' });
    const asWire = [
      { role: 'system', content: request.system },
      ...request.messages.map((message): WireMessage => {
        if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId!, content: message.content };
        if (message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 0) {
          return {
            role: 'assistant',
            content: message.content === '' ? null : message.content,
            tool_calls: message.toolCalls!.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.argsText ?? JSON.stringify(call.args) } })),
            reasoning_content: message.reasoning ?? '',
          };
        }
        return { role: message.role, content: message.content };
      }),
    ];
    expect(asWire).toEqual(third.messages);
    expect(request.tools.map((tool) => ({ type: 'function', function: tool }))).toEqual(third.tools);

    // The log holds the whole chain, step by step.
    const events = await logOf(runId);
    const types = events.map((event) => event.type);
    const step = ['request/header', 'request/context', 'assistant/message', 'tool/call', 'tool/result'];
    expect(inOrder(types, ['run/started', 'user/message', ...step, ...step, 'request/header', 'request/context', 'assistant/message', 'agent/finished', 'run/succeeded'])).toBe(true);
    expect(types.filter((type) => type === 'request/header')).toHaveLength(3);
    const assistants = events.filter((event) => event.type === 'assistant/message');
    expect(assistants.map((event) => [event.nodeId, event.step, event.payload['reasoning'], event.payload['finishReason']])).toEqual([
      ['react', 1, THOUGHT_1.join(''), 'tool-calls'],
      ['react', 2, THOUGHT_2.join(''), 'tool-calls'],
      ['react', 3, 'All done.', 'stop'],
    ]);
    expect(assistants.map((event) => event.payload['usage'])).toEqual([
      { input: 1200, output: 40, cacheHit: 0, reasoning: 0 },
      { input: 1424, output: 60, cacheHit: 1024, reasoning: 0 },
      { input: 1608, output: 30, cacheHit: 1408, reasoning: 0 },
    ]);
    expect(assistants.at(-1)?.payload['content']).toBe(ANSWER.join(''));
    const results = events.filter((event) => event.type === 'tool/result');
    expect(results.map((event) => [event.payload['toolCallId'], event.payload['name'], event.payload['isError']])).toEqual([
      [READ_CALL, 'read_file', false],
      [EDIT_CALL, 'edit_file', false],
    ]);
    // What the model was sent is what the log stored.
    expect(results.map((event) => event.payload['content'])).toEqual([readResult.content, editResult.content]);
    expect(events.find((event) => event.type === 'agent/finished')?.payload).toMatchObject({ reason: 'done', steps: 3 });
  });

  it('retries a 429 with Retry-After: 0, logs model/retried, and finishes', async () => {
    server.enqueue(
      {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '0' },
        body: openAIError('Rate Limit Reached', 'rate_limit_error', 'invalid_request_error'),
      },
      answerTurn({ thoughts: ['Nothing to change.'], pieces: ['Nothing', ' to do.'], usage: deepSeekUsage(0, 900, 12) }),
    );
    const started = Date.now();
    const result = await react('Is there anything to rename in src/a.ts?', 'auto');

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Nothing to do.\n');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body);
    const events = await logOf(runIdOf(result));
    const retried = events.filter((event) => event.type === 'model/retried');
    expect(retried).toHaveLength(1);
    expect(retried[0]).toMatchObject({ nodeId: 'react', step: 1, payload: { attempt: 1, status: 429 } });
    expect(retried[0]?.payload['delayMs']).toBeLessThanOrEqual(500);
    expect(String(retried[0]?.payload['error'])).toContain('Rate Limit Reached');
    // One request recorded, one answer: the failed attempt left nothing else in the log.
    expect(events.filter((event) => event.type === 'request/header')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'assistant/message')).toHaveLength(1);
    expect(inOrder(events.map((event) => event.type), ['request/header', 'request/context', 'model/retried', 'assistant/message', 'run/succeeded'])).toBe(true);
  });

  it('under --approval suggest with no terminal, denies the edit, records it, and fails the run though the model answers', async () => {
    server.enqueue(
      toolCallTurn({
        thoughts: ['Edit directly.'],
        id: EDIT_CALL,
        name: 'edit_file',
        fragments: ['{"path": "src/a.ts", "old_string": ', '"export function foo()", "new_string": "export function bar()"}'],
        usage: deepSeekUsage(0, 1100, 50),
      }),
      answerTurn({ thoughts: ['The user said no.'], pieces: ['The edit was rejected;', ' src/a.ts is unchanged.'], usage: deepSeekUsage(1024, 150, 20) }),
    );
    const result = await react(TASK, 'suggest');

    // A denied write fails the run, as it fails a plan node.
    expect(result.code, result.stderr).toBe(1);
    expect(readFileSync(join(workspace, 'src', 'a.ts'), 'utf8')).toBe(SOURCE);
    expect(result.stdout).toMatch(/^  → edit_file \{"path":"src\/a\.ts",.*\}\n  ⊘ react edit_file: denied \(no terminal to ask\)\n\n/);
    expect(result.stdout.endsWith('\n\nThe edit was rejected; src/a.ts is unchanged.\n')).toBe(true);
    expect(result.stderr).toContain('\nfailed: a write was denied\n1 tool call was denied: there was no terminal to ask for approval;');

    const events = await logOf(runIdOf(result));
    expect(inOrder(events.map((event) => event.type), ['assistant/message', 'approval/requested', 'approval/denied', 'tool/result', 'request/header', 'assistant/message', 'node/failed', 'run/failed'])).toBe(true);
    // Nothing ran: a denied call gets no tool/call event, only its result.
    expect(events.some((event) => event.type === 'tool/call')).toBe(false);
    expect(events.find((event) => event.type === 'approval/requested')?.payload).toMatchObject({ toolCallId: EDIT_CALL, tool: 'edit_file', policy: 'suggest' });
    expect(events.find((event) => event.type === 'approval/denied')?.payload).toMatchObject({ toolCallId: EDIT_CALL, by: 'non-interactive', reason: 'no terminal to ask' });
    expect(events.some((event) => event.type === 'approval/granted')).toBe(false);
    const denial = events.find((event) => event.type === 'tool/result');
    expect(denial?.payload).toMatchObject({ toolCallId: EDIT_CALL, name: 'edit_file', isError: true, meta: { outcome: 'denied' } });
    expect(String(denial?.payload['content'])).toMatch(/^the user rejected this operation \(no terminal to ask\)/);

    // The model saw the denial as the tool result of its call.
    const second = server.requests[1]?.json as WireBody;
    expect(second.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: EDIT_CALL, content: denial?.payload['content'] });
    expect(second.messages.at(-2)).toMatchObject({ role: 'assistant', reasoning_content: 'Edit directly.' });
  });
});

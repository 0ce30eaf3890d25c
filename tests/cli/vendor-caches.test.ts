import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli-harness.js';
import { startLoopbackServer, type LoopbackResponse, type LoopbackServer } from '../helpers/loopback-server.js';
import { tempDir } from '../helpers/temp-store.js';
import { openAISse, type Json } from '../engine/model/wire-samples.js';

/**
 * Kimi's context cache and GLM's prompt cache are automatic prefix caches: nothing to ask for but
 * a prefix that stays byte for byte the same, and hits to read back from usage and bill at the
 * cache rate.
 *
 * GLM's stream follows the recorded Z.ai chunks (the finish chunk carries `usage` with
 * `prompt_tokens_details.cached_tokens`, as docs.z.ai's context-caching page documents). No
 * recording of Kimi's stream was available: its chunks here are built from Moonshot's documented
 * format (usage with `cached_tokens` beside `prompt_tokens`, on the final chunk's
 * `choices[0].usage`), not captured.
 */

interface LoggedEvent {
  type: string;
  payload: { usage?: { input: number; output: number; cacheHit: number }; costUsd?: number; provider?: string };
}
interface WireBody {
  messages: unknown[];
  tools: unknown[];
}

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let server: LoopbackServer;

beforeEach(async () => {
  temp = tempDir('dagent-vendor-caches-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'a.ts'), 'export const a = 1;\n');
  mkdirSync(join(temp.dir, 'home'));
  server = await startLoopbackServer();
});
afterEach(async () => {
  await server.close();
  temp.cleanup();
});

const env = (): NodeJS.ProcessEnv => ({ HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config'), PATH: process.env.PATH });
const cli = (args: readonly string[]): Promise<CliResult> => runCli(args, { cwd: workspace, env: env() });

/** A GLM chunk as Z.ai streams it: `index` repeated inside the delta, `logprobs: null`. */
function glmChunk(delta: Json, options: { finish?: string; usage?: Json } = {}): Json {
  return {
    id: '735e434874a24f68a2390b3cab149242', object: 'chat.completion.chunk', created: 1787234678, model: 'glm-4.6',
    choices: [{ index: 0, delta: { index: 0, ...delta }, finish_reason: options.finish ?? null, logprobs: null }],
    ...(options.usage === undefined ? {} : { usage: options.usage }),
  };
}

/** A Kimi chunk as Moonshot documents it: the final chunk's usage on `choices[0].usage`, hits as `cached_tokens`. */
function kimiChunk(delta: Json, options: { finish?: string; usage?: Json } = {}): Json {
  return {
    id: 'chatcmpl-6a1f0c2b9e7d4c3aa5b8e1f0', object: 'chat.completion.chunk', created: 1790000200, model: 'kimi-k2.5',
    choices: [{ index: 0, delta, finish_reason: options.finish ?? null, ...(options.usage === undefined ? {} : { usage: options.usage }) }],
  };
}

type ChunkOf = (delta: Json, options?: { finish?: string; usage?: Json }) => Json;

function conversation(chunk: ChunkOf, usages: readonly [Json, Json]): LoopbackResponse[] {
  return [
    {
      body: openAISse([
        chunk({ role: 'assistant', content: '' }),
        chunk({ tool_calls: [{ index: 0, id: 'read_file:0', type: 'function', function: { name: 'read_file', arguments: '{"path": "src/a.ts"}' } }] }),
        chunk({ content: '' }, { finish: 'tool_calls', usage: usages[0] }),
      ]),
      splitEvery: 41,
    },
    { body: openAISse([chunk({ role: 'assistant', content: 'a is 1.' }), chunk({ content: '' }, { finish: 'stop', usage: usages[1] })]) },
  ];
}

async function answers(runId: string): Promise<LoggedEvent[]> {
  const result = await cli(['log', runId, '--type', 'assistant/message', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
}

const runIdOf = (result: CliResult): string => /^run (\S+) · /m.exec(result.stderr)?.[1] ?? '';

describe('vendor prompt caches: hits counted and priced', () => {
  it.each([
    {
      vendor: 'kimi',
      model: 'kimi:kimi-k2.5',
      chunk: kimiChunk,
      usages: [
        { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240, cached_tokens: 0 },
        { prompt_tokens: 1500, completion_tokens: 30, total_tokens: 1530, cached_tokens: 1024 },
      ],
      // 2700 in, 1024 hits: (1676 · $0.60 + 1024 · $0.10 + 70 · $3.00) / 1M
      hits: [0, 1024], share: 38, usd: (1676 * 0.6 + 1024 * 0.1 + 70 * 3) / 1e6,
    },
    {
      vendor: 'glm',
      model: 'glm:glm-4.6',
      chunk: glmChunk,
      usages: [
        { prompt_tokens: 1300, total_tokens: 1320, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 0 } },
        { prompt_tokens: 1600, total_tokens: 1625, completion_tokens: 25, prompt_tokens_details: { cached_tokens: 1280 } },
      ],
      // 2900 in, 1280 hits: (1620 · $0.60 + 1280 · $0.11 + 45 · $2.20) / 1M
      hits: [0, 1280], share: 44, usd: (1620 * 0.6 + 1280 * 0.11 + 45 * 2.2) / 1e6,
    },
  ] as const)('$vendor: the second call reads the cached prefix back, and its hits are billed at the cache rate', async ({ model, chunk, usages, hits, share, usd }) => {
    server.enqueue(...conversation(chunk, usages));

    const result = await cli(['react', 'What is a in src/a.ts?', '--model', model, '--base-url', server.url]);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`· 2 steps · \\S+ in \\(${share}% cache hit\\)`));
    const logged = await answers(runIdOf(result));
    expect(logged.map((event) => event.payload.usage?.cacheHit)).toEqual(hits);
    const cost = logged.reduce((sum, event) => sum + (event.payload.costUsd ?? 0), 0);
    expect(cost).toBeCloseTo(usd, 10);
    // What the caches need from us: the second request starts with the first, byte for byte.
    const [first, second] = server.requests.map((request) => request.json as WireBody) as [WireBody, WireBody];
    expect(JSON.stringify(second.tools)).toBe(JSON.stringify(first.tools));
    expect(JSON.stringify(second.messages.slice(0, first.messages.length))).toBe(JSON.stringify(first.messages));
  });
});

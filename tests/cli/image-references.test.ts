import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli-harness.js';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { tempDir } from '../helpers/temp-store.js';
import { anthropicMessageStart, anthropicSse, openAIChunk, openAISse, openAIUsageChunk } from '../engine/model/wire-samples.js';

/**
 * `@shot.png` in a task or a node instruction: the image goes to models that take images as an
 * image part of the user message (OpenAI-compatible `image_url` data URL, Anthropic base64
 * `image` block), the log records it by path, hash, type and size (never the bytes), and a model
 * that takes no images, an image over the cap or a path outside the workspace is refused in one line.
 */

// A 1×1 PNG, as a screenshot tool would write it.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const PNG_SHA256 = createHash('sha256').update(PNG).digest('hex');
const TASK = 'Why is the button cut off in @shots/ui.png?';

interface LoggedEvent {
  nodeId: string | null;
  type: string;
  payload: Record<string, unknown>;
}

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;
let server: LoopbackServer;

beforeEach(async () => {
  temp = tempDir('dagent-images-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'shots'), { recursive: true });
  writeFileSync(join(workspace, 'shots', 'ui.png'), PNG);
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config'), PATH: process.env.PATH };
  server = await startLoopbackServer();
});
afterEach(async () => {
  await server.close();
  temp.cleanup();
});

const cli = (args: readonly string[]): Promise<CliResult> => runCli(args, { cwd: workspace, env });

function script(name: string, body: Record<string, unknown>): string {
  const file = join(temp.dir, name);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

async function logOf(runId: string, type: string): Promise<LoggedEvent[]> {
  const result = await cli(['log', runId, '--type', type, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
}

const runIdOf = (result: CliResult): string => /^run (\S+) · /m.exec(result.stderr)?.[1] ?? '';

describe('@image references', () => {
  it('a model that takes images gets the screenshot; the log keeps its path, hash, type and size, not its bytes', async () => {
    const model = script('vision.json', { images: true, agents: { react: [{ text: 'The container has overflow: hidden.' }] } });

    const result = await cli(['react', TASK, '--model', `scripted:${model}`]);

    expect(result.code, result.stderr).toBe(0);
    const runId = runIdOf(result);
    const [instruction] = await logOf(runId, 'user/message');
    expect(instruction!.payload).toEqual({
      content: TASK,
      source: 'instruction',
      images: [{ path: 'shots/ui.png', sha256: PNG_SHA256, mediaType: 'image/png', bytes: PNG.byteLength }],
    });
    const whole = (await cli(['log', runId, '--json'])).stdout;
    expect(whole).not.toContain(PNG.toString('base64'));
  });

  it('a model that takes no images is refused in one line before anything runs', async () => {
    const model = script('text-only.json', { agents: { react: [{ text: 'never asked' }] } });

    const result = await cli(['react', TASK, '--model', `scripted:${model}`]);

    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/@shots\/ui\.png: scripted:\S+text-only\.json does not accept images: use a model that does/);
    expect((await cli(['status', '--json'])).stdout).not.toContain('Why is the button');
  });

  it('an image over images.maxBytes is refused with its size and the cap', async () => {
    writeFileSync(join(workspace, 'shots', 'big.png'), Buffer.concat([PNG, Buffer.alloc(3 * 1024 * 1024)]));
    mkdirSync(join(workspace, '.dagent'));
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ images: { maxBytes: 2 * 1024 * 1024 } }));
    await cli(['trust']);
    const model = script('vision.json', { images: true, agents: { react: [{ text: 'never asked' }] } });

    const result = await cli(['react', 'Look at @shots/big.png', '--model', `scripted:${model}`]);

    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('dagent: @shots/big.png: the image has 3.0 MB (3145798 bytes), more than the 2.0 MB cap (images.maxBytes in .dagent/config.json)');
  });

  it('a path outside the workspace, or a file that is no image, is refused by the same checks', async () => {
    writeFileSync(join(temp.dir, 'secret.png'), PNG);
    writeFileSync(join(workspace, 'shots', 'fake.png'), 'not an image at all');
    const model = script('vision.json', { images: true, agents: { react: [{ text: 'never asked' }] } });

    const outside = await cli(['react', 'Look at @../secret.png', '--model', `scripted:${model}`]);
    const fake = await cli(['react', 'Look at @shots/fake.png', '--model', `scripted:${model}`]);

    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/^dagent: @\.\.\/secret\.png: .*outside the workspace/);
    expect(fake.code).toBe(2);
    expect(fake.stderr.trim()).toBe('dagent: @shots/fake.png: not a PNG, JPEG, GIF or WebP image (its bytes say otherwise)');
  });

  it('an OpenAI-compatible server receives the image as an image_url data URL part beside the text', async () => {
    server.enqueue({
      body: openAISse([openAIChunk({ role: 'assistant', content: '' }), openAIChunk({ content: 'It overflows.' }), openAIChunk({}, { finish: 'stop' }), openAIUsageChunk({ prompt_tokens: 900, completion_tokens: 4, total_tokens: 904 })]),
    });

    const result = await cli(['react', TASK, '--model', 'openai:gpt-4.1', '--base-url', server.url]);

    expect(result.code, result.stderr).toBe(0);
    const body = server.requests[0]!.json as { messages: { role: string; content: unknown }[] };
    expect(body.messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: TASK },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
      ],
    });
  });

  it('Anthropic receives the image as a base64 image block before the text', async () => {
    server.enqueue({
      body: anthropicSse([
        anthropicMessageStart({ input_tokens: 900, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }),
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'It overflows.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 4 } },
        { type: 'message_stop' },
      ]),
    });

    const result = await cli(['react', TASK, '--model', 'anthropic:claude-sonnet-4-5', '--base-url', server.url]);

    expect(result.code, result.stderr).toBe(0);
    const body = server.requests[0]!.json as { messages: { role: string; content: Record<string, unknown>[] }[] };
    const [image, text] = body.messages[0]!.content;
    expect(image).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') } });
    expect(text).toMatchObject({ type: 'text', text: TASK });
  });

  it('a plan node whose instruction names an image gets it; a node on a text-only model stops with one line', { timeout: 90_000 }, async () => {
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({
      goal: 'Explain the layout bug',
      nodes: [{ id: 'look', kind: 'read', title: 'Look at the screenshot', instructions: 'Describe what @shots/ui.png shows.' }],
    }));
    const vision = script('vision.json', { images: true, agents: { 'node:look': [{ text: 'A cut-off button.' }] } });
    const textOnly = script('text-only.json', { agents: { 'node:look': [{ text: 'never asked' }] } });

    const seen = await cli(['plan', '--from', 'plan.json', '--yes', '--no-dashboard', '--model', `scripted:${vision}`]);
    const refused = await cli(['plan', '--from', 'plan.json', '--yes', '--no-dashboard', '--model', `scripted:${textOnly}`]);

    expect(seen.code, seen.stdout + seen.stderr).toBe(0);
    const seenRun = /run (\S+)/.exec(seen.stdout + seen.stderr)![1]!;
    const [instruction] = (await logOf(seenRun, 'user/message')).filter((event) => event.nodeId === 'look');
    expect(instruction!.payload['images']).toEqual([{ path: 'shots/ui.png', sha256: PNG_SHA256, mediaType: 'image/png', bytes: PNG.byteLength }]);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/does not accept images \(@shots\/ui\.png\)/);
  });
});

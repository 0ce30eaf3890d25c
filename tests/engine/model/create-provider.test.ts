import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidModelIdError, MissingApiKeyError, ScriptFileError, callModel, createProvider } from '../../../engine/model/index.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { modelRequest } from './request-fixtures.js';
import { anthropicMessageStart, anthropicSse, openAIChunk, openAISse } from './wire-samples.js';

describe('createProvider', () => {
  it.each([
    ['deepseek:deepseek-chat', 'DEEPSEEK_API_KEY'],
    ['openai:gpt-4.1', 'OPENAI_API_KEY'],
    ['anthropic:claude-sonnet-4-5', 'ANTHROPIC_API_KEY'],
    ['kimi:kimi-k2-0905-preview', 'MOONSHOT_API_KEY'],
    ['glm:glm-4.6', 'ZHIPUAI_API_KEY'],
  ])('%s without a key fails with one line naming %s', (modelId, variable) => {
    const create = (): unknown => createProvider(modelId, { env: { [variable]: '  ' } });
    expect(create).toThrow(MissingApiKeyError);
    expect(create).toThrow(new RegExp(`needs an API key: set ${variable}`));
  });

  it('needs no key for local servers and knows their windows', () => {
    const provider = createProvider('ollama:qwen2.5-coder:7b', { env: {}, contextWindows: { 'ollama:qwen2.5-coder': 65_536 } });
    expect(provider).toMatchObject({ id: 'ollama', model: 'qwen2.5-coder:7b', modelId: { provider: 'ollama', model: 'qwen2.5-coder:7b' } });
    expect(provider.contextWindow(provider.model)).toBe(65_536);
    expect(createProvider('vllm:Qwen/Qwen3-Coder', { env: {} }).contextWindow('Qwen/Qwen3-Coder')).toBe(32_768);
  });

  it('reports a malformed id before anything else', () => {
    expect(() => createProvider('gpt-4.1', { env: {} })).toThrow(InvalidModelIdError);
  });

  it('builds the scripted provider from a file read through the given reader', async () => {
    const files: string[] = [];
    const provider = createProvider('scripted:examples/demo.json', {
      readFile: (path) => {
        files.push(path);
        return JSON.stringify({ contextWindow: 50_000, agents: { react: [{ text: 'offline answer' }] } });
      },
    });

    const response = await callModel(provider, modelRequest({ agent: 'react', model: provider.model }), { signal: new AbortController().signal });

    expect(files).toEqual(['examples/demo.json']);
    expect(provider.id).toBe('scripted');
    expect(provider.contextWindow(provider.model)).toBe(50_000);
    expect(response.content).toBe('offline answer');
  });

  it('fails clearly for a scripted file that is not a script', () => {
    expect(() => createProvider('scripted:demo.json', { readFile: () => '{"agent": {}}' })).toThrow(ScriptFileError);
  });

  describe('against a loopback server', () => {
    let server: LoopbackServer;
    beforeEach(async () => {
      server = await startLoopbackServer();
    });
    afterEach(async () => server.close());

    it('speaks the DeepSeek streaming format with the key from the environment', async () => {
      server.enqueue({ body: openAISse([openAIChunk({ content: 'pong' }, { finish: 'stop', model: 'deepseek-chat' })]) });
      const provider = createProvider('deepseek:deepseek-chat', { baseUrl: `${server.url}/v1`, env: { DEEPSEEK_API_KEY: 'sk-from-env' } });

      const response = await callModel(provider, modelRequest({ model: provider.model }), { signal: new AbortController().signal });

      expect(response.content).toBe('pong');
      expect(server.requests[0]).toMatchObject({ path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-from-env' } });
      expect((server.requests[0]?.json as Record<string, unknown>)['max_tokens']).toBeUndefined();
    });

    it('lets an explicit key win over the environment, and sends no key when a custom URL has none', async () => {
      server.enqueue(
        { body: openAISse([openAIChunk({ content: 'a' }, { finish: 'stop' })]) },
        { body: anthropicSse([anthropicMessageStart({ input_tokens: 1, output_tokens: 1 }), { type: 'message_stop' }]) },
      );

      await callModel(createProvider('openai:gpt-4.1', { baseUrl: `${server.url}/v1`, apiKey: 'sk-explicit', env: { OPENAI_API_KEY: 'sk-env' } }), modelRequest(), { signal: new AbortController().signal });
      await callModel(createProvider('anthropic:claude-haiku-4-5', { baseUrl: server.url, env: {} }), modelRequest(), { signal: new AbortController().signal });

      expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-explicit');
      expect(server.requests[1]?.path).toBe('/v1/messages');
      expect(server.requests[1]?.headers['x-api-key']).toBeUndefined();
    });
  });
});

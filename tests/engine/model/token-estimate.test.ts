import { createRequire } from 'node:module';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type * as GptTokenizerModule from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countPromptsAhead, estimateMessageTokens, estimateMessagesTokens, estimateSystemTokens, estimateTextTokens, estimateToolTokens, loadTokenizer } from '../../../engine/model/token-estimate.js';
import { requestParts } from '../../../engine/model/request-text.js';
import { requestTokenPartsAsync, requestTokens } from '../../../engine/model/request-tokens.js';
import { historyWithToolRound, modelRequest } from './request-fixtures.js';

const gptTokenizer = createRequire(import.meta.url)('gpt-tokenizer') as typeof GptTokenizerModule;
const PLAIN = { disallowedSpecial: new Set<string>() };

/**
 * A tokenizer thread that cannot load costs a run nothing but the load: its counts come from the
 * tables loaded in process instead, the same numbers.
 */
describe('token estimates when the tokenizer thread fails', () => {
  it('falls back to the tables in process and counts the same', () => {
    loadTokenizer({ modulePath: join(tmpdir(), 'dagent-no-such-tokenizer.cjs') });
    const text = 'The run counts <|endoftext|> as text, and 日本語 too.';

    expect(estimateTextTokens(text)).toBe(gptTokenizer.countTokens(text, PLAIN));
    const request = modelRequest({ messages: historyWithToolRound() });
    expect(requestTokens(request)).toEqual(requestParts(request).flatMap((part) => gptTokenizer.encode(part.text, PLAIN)));
  });

  it('counts a step\'s new messages together as each would be counted alone', () => {
    const messages = historyWithToolRound('First the interface, then its callers.');

    const together = estimateMessagesTokens(messages);

    expect(together).toEqual(messages.map((message) => estimateMessageTokens(message)));
    const [instruction, answer] = messages;
    expect(together[0]).toBe(4 + gptTokenizer.countTokens(instruction!.content, PLAIN));
    expect(answer!.role).toBe('assistant');
    expect(together[1]).toBeGreaterThan(4 + 2 * 8 + gptTokenizer.countTokens(answer!.content, PLAIN));
  });

  it('encodes requests that meet a system text and tools never seen, at once, as one request alone would', async () => {
    const system = `You are the reviewer of run ${Date.now()}: 日本語 and <|endoftext|> are text.`;
    const first = modelRequest({ system });
    const second = modelRequest({ system, messages: historyWithToolRound() });
    const alone = (request: typeof first) => requestParts(request).map((part) => gptTokenizer.encode(part.text, PLAIN));

    const [a, b] = await Promise.all([requestTokenPartsAsync(first), requestTokenPartsAsync(second)]);

    expect(a).toEqual(alone(first));
    expect(b).toEqual(alone(second));
    expect(requestTokens(second)).toEqual(alone(second).flat());
  });

  it("counts a run's prompts ahead, without blocking, to the same numbers a node's first step would count", async () => {
    const system = `You are node ${Date.now()} of a run: 日本語 and <|endoftext|> are text.`;
    const tools = [
      { name: 'read_file', description: `Reads a file (${Date.now()}).`, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
      { name: 'grep', description: `Searches files (${Date.now()}).`, parameters: { type: 'object', properties: { pattern: { type: 'string' } } } },
    ];

    await countPromptsAhead([{ system, tools }, { system, tools: [tools[1]!] }, { system: '', tools: [] }]);

    expect(estimateSystemTokens.peek(system)).toBe(gptTokenizer.countTokens(system, PLAIN));
    expect(estimateSystemTokens.peek('')).toBe(0);
    const definition = (tool: (typeof tools)[number]) => `${tool.name}\n${tool.description}\n${JSON.stringify(tool.parameters)}`;
    expect(estimateToolTokens(tools)).toBe(tools.reduce((total, tool) => total + 8 + gptTokenizer.countTokens(definition(tool), PLAIN), 0));
  });
});

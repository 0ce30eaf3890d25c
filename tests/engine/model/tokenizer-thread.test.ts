import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type * as GptTokenizerModule from 'gpt-tokenizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenizerThread, TokenizerThreadError } from '../../../engine/model/tokenizer-thread.js';
import { tempDir } from '../../helpers/temp-store.js';

const exec = promisify(execFile);
const gptTokenizer = createRequire(import.meta.url)('gpt-tokenizer') as typeof GptTokenizerModule;
const PLAIN = { disallowedSpecial: new Set<string>() };

const TEXTS = [
  'hello world',
  'export function estimateTextTokens(text: string): number {\n  return tokenizer().count(text);\n}\n',
  'Text about <|endoftext|> and <|im_start|> is counted as text.',
  'naïve café — 日本語のテキスト, emoji 🧪🚀 and a tab\there',
  '',
];

/** A tokenizer for the thread to load: a count is the text's length, `boom` is refused, `slow` takes 150 ms; an encoding is the code points. */
function fakeTokenizer(folder: string): string {
  const path = join(folder, 'fake-tokenizer.cjs');
  writeFileSync(
    path,
    "exports.countTokens = (text) => { if (text === 'boom') throw new Error('the fake tokenizer refused boom'); if (text === 'slow') { const end = Date.now() + 150; while (Date.now() < end); } return text.length; };\n" +
      'exports.encode = (text) => [...text].map((character) => character.codePointAt(0));\n',
  );
  return path;
}

/**
 * The tokenizer's tables load in a thread of their own and answer synchronously: the counts and
 * tokens a run records are exactly those of gpt-tokenizer in process, however long the text, and a
 * thread that cannot serve says so at once instead of hanging the run.
 */
describe('the tokenizer thread', () => {
  let threads: TokenizerThread[] = [];
  let dir: { dir: string; cleanup: () => void };
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    await Promise.all(threads.map((thread) => thread.stop()));
    threads = [];
    dir.cleanup();
  });
  const start = (options: Parameters<typeof TokenizerThread.start>[0] = {}): TokenizerThread => {
    const thread = TokenizerThread.start(options);
    threads.push(thread);
    return thread;
  };

  it('counts and encodes exactly as gpt-tokenizer does in process, special tokens as text', () => {
    const thread = start();

    for (const text of TEXTS) {
      expect(thread.count(text)).toBe(gptTokenizer.countTokens(text, PLAIN));
      expect(thread.encode(text)).toEqual(gptTokenizer.encode(text, PLAIN));
    }
  });

  it('answers several texts in one request, each as it would alone', () => {
    const thread = start();

    expect(thread.countMany(TEXTS)).toEqual(TEXTS.map((text) => gptTokenizer.countTokens(text, PLAIN)));
    expect(thread.encodeMany(TEXTS)).toEqual(TEXTS.map((text) => gptTokenizer.encode(text, PLAIN)));
    expect(thread.countMany([])).toEqual([]);
  });

  it('encodes without blocking its caller, answering requests in the order they were made, synchronous ones among them', async () => {
    const thread = start({ initialBytes: 64 });
    const long = TEXTS.join('\n').repeat(50);

    const first = thread.encodeManyAsync([long, TEXTS[0]!]);
    const second = thread.encodeManyAsync([TEXTS[1]!]);
    // A synchronous call meets the first request in flight and the second one queued.
    const counted = thread.count(TEXTS[3]!);
    const third = thread.encodeManyAsync([TEXTS[2]!]);

    expect(counted).toBe(gptTokenizer.countTokens(TEXTS[3]!, PLAIN));
    expect(await first).toEqual([gptTokenizer.encode(long, PLAIN), gptTokenizer.encode(TEXTS[0]!, PLAIN)]);
    expect(await second).toEqual([gptTokenizer.encode(TEXTS[1]!, PLAIN)]);
    expect(await third).toEqual([gptTokenizer.encode(TEXTS[2]!, PLAIN)]);
    expect(await thread.encodeManyAsync([])).toEqual([]);
  });

  it('sends the calls made while one is answered together, each answered as it would be alone', async () => {
    const thread = start({ modulePath: fakeTokenizer(dir.dir) });
    expect(thread.count('warm')).toBe(4);
    const before = thread.requests;

    const first = thread.countManyAsync(['slow']);
    const stage = [['a'], ['bb', 'ccc'], [], ['dddd']].map((texts) => thread.countManyAsync(texts));
    const encoded = thread.encodeManyAsync(['hi']);

    expect(await first).toEqual([4]);
    expect(await Promise.all(stage)).toEqual([[1], [2, 3], [], [4]]);
    expect(await encoded).toEqual([[104, 105]]);
    expect(thread.requests - before).toBe(3);
  });

  it('makes a joined request the tokenizer refused again call by call: only the refused call fails', async () => {
    const thread = start({ modulePath: fakeTokenizer(dir.dir) });

    const first = thread.countManyAsync(['slow']);
    const [good, refused, after] = [['one'], ['boom'], ['three', 'four']].map((texts) => thread.countManyAsync(texts));

    expect(await first).toEqual([4]);
    expect(await good).toEqual([3]);
    await expect(refused).rejects.toThrow('the fake tokenizer refused boom');
    expect(await after).toEqual([5, 4]);
  });

  it('takes a text many times the size of its shared buffer, and small ones after it', () => {
    const thread = start({ initialBytes: 64 });
    const long = TEXTS.join('\n').repeat(200);

    expect(thread.encode(long)).toEqual(gptTokenizer.encode(long, PLAIN));
    expect(thread.count(long)).toBe(gptTokenizer.countTokens(long, PLAIN));
    expect(thread.encodeMany([long, 'hello world', long])).toEqual([gptTokenizer.encode(long, PLAIN), [24912, 2375], gptTokenizer.encode(long, PLAIN)]);
    expect(thread.count('hello world')).toBe(2);
  });

  it("passes its tokenizer's error on and goes on answering", () => {
    const thread = start({ modulePath: fakeTokenizer(dir.dir) });

    expect(() => thread.count('boom')).toThrow('the fake tokenizer refused boom');
    expect(() => thread.encode('boom')).not.toThrow();
    expect(() => thread.count('boom')).not.toThrow(TokenizerThreadError);
    expect(thread.count('four')).toBe(4);
    expect(thread.encode('ab')).toEqual([97, 98]);
  });

  it('says it is loading until its tables are loaded, so set-up can use the wait', () => {
    const slow = join(dir.dir, 'slow-tokenizer.cjs');
    const real = createRequire(import.meta.url).resolve('gpt-tokenizer');
    writeFileSync(slow, `const until = Date.now() + 300; while (Date.now() < until); module.exports = require(${JSON.stringify(real)});`);
    const thread = start({ modulePath: slow });

    expect(thread.loading).toBe(true);
    expect(thread.working).toBe(true);
    expect(thread.count('hello world')).toBe(gptTokenizer.countTokens('hello world', PLAIN));
    expect(thread.loading).toBe(false);
    expect(thread.working).toBe(false);
  });

  it('says it is working while an answer it owes is on the way, so the caller can use the wait', async () => {
    const thread = start();
    thread.count('load first');
    const long = 'a question of many words '.repeat(20_000);

    const answer = thread.countManyAsync([long]);
    const workingAtOnce = thread.working;
    const [count] = await answer;

    expect(workingAtOnce).toBe(true);
    expect(count).toBe(gptTokenizer.countTokens(long, PLAIN));
    expect(thread.working).toBe(false);
  });

  it('says it could not load its tokenizer, and stays refused', () => {
    const thread = start({ modulePath: join(dir.dir, 'no-such-tokenizer.cjs'), timeoutMs: 30_000 });

    expect(() => thread.count('hello')).toThrow(/could not load gpt-tokenizer: .*no-such-tokenizer/);
    expect(() => thread.count('hello')).toThrow(TokenizerThreadError);
  });

  it('gives up on a thread that does not answer within its timeout', () => {
    const thread = start({ workerSource: 'setInterval(() => {}, 1000);', timeoutMs: 300 });

    const began = Date.now();
    expect(() => thread.count('hello')).toThrow(/did not answer within 300 ms/);
    expect(Date.now() - began).toBeLessThan(10_000);
    expect(() => thread.encode('hello')).toThrow(TokenizerThreadError);
  });

  it('never keeps its process alive, and starts whatever flags the process was given', async () => {
    const module = pathToFileURL(join(process.cwd(), 'dist', 'engine', 'model', 'tokenizer-thread.js')).href;
    // The asynchronous answer is all the process waits for: it must not end before it.
    const script = `import(${JSON.stringify(module)}).then(async ({ TokenizerThread }) => {
      const thread = TokenizerThread.start();
      console.log(thread.count('hello world'), (await thread.encodeManyAsync(['hello world', 'hi']))[0].length);
    });`;

    // --input-type=module would make evaluated code a module; a thread refuses V8 flags of its own.
    const runs = await Promise.all([[], ['--input-type=module'], ['--max-old-space-size=512', '--expose-gc']].map((flags) => exec(process.execPath, [...flags, '-e', script], { timeout: 30_000 })));

    expect(runs.map((run) => run.stdout.trim())).toEqual(['2 2', '2 2', '2 2']);
  });
});

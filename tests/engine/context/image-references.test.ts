import { describe, expect, it } from 'vitest';
import { findImageReferences, imageMediaType, loadImageData, type ImageSource } from '../../../engine/context/image-references.js';
import type { ModelMessage } from '../../../engine/model/model-message.js';
import { acceptsImages } from '../../../engine/model/image-capability.js';

describe('findImageReferences', () => {
  it.each([
    ['look at @shot.png', ['shot.png']],
    ['compare @a/b.JPG and @c.jpeg, then @d.gif.', ['a/b.JPG', 'c.jpeg', 'd.gif']],
    ['(@ui/x.webp) and @ui/x.webp again', ['ui/x.webp']],
    ['@"shots/with space.png" quoted', ['shots/with space.png']],
    ['mail me@host.png or \\@literal.png', []],
    ['@src/a.ts is code, not an image', []],
  ])('%s', (text, expected) => {
    expect(findImageReferences(text)).toEqual(expected);
  });
});

describe('imageMediaType reads the bytes, not the name', () => {
  const bytes = (...values: number[]): Uint8Array => Uint8Array.from([...values, ...Array<number>(16).fill(0)]);
  it.each([
    [bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), 'image/png'],
    [bytes(0xff, 0xd8, 0xff, 0xe0), 'image/jpeg'],
    [bytes(0x47, 0x49, 0x46, 0x38, 0x39, 0x61), 'image/gif'],
    [bytes(0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50), 'image/webp'],
    [new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'), undefined],
  ])('%#', (content, expected) => {
    expect(imageMediaType(content)).toBe(expected);
  });
});

describe('loadImageData', () => {
  const message = (sha256: string): ModelMessage => ({
    role: 'user', seq: 1, source: 'instruction', content: 'see @a.png', images: [{ path: 'a.png', sha256, mediaType: 'image/png', bytes: 3 }],
  });
  const source = (content: Uint8Array): ImageSource => ({ read: async (path) => ({ path, size: content.byteLength, content }) });
  const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

  it('fills in the bytes of a file that still hashes as logged, once per hash', async () => {
    let reads = 0;
    const counting: ImageSource = { read: async (path) => (reads++, { path, size: 3, content: new TextEncoder().encode('abc') }) };
    const loaded = new Map<string, string>();
    const [first] = await loadImageData([message(ABC_SHA256)], { source: counting, maxBytes: 10, loaded });
    await loadImageData([message(ABC_SHA256)], { source: counting, maxBytes: 10, loaded });
    expect(first).toMatchObject({ images: [{ path: 'a.png', data: 'YWJj' }] });
    expect(reads).toBe(1);
  });

  it('refuses a file changed since it was attached, naming it', async () => {
    await expect(loadImageData([message(ABC_SHA256)], { source: source(new TextEncoder().encode('xyz')), maxBytes: 10 })).rejects.toThrow(
      /^@a\.png: the image changed since it was attached \(the log holds sha256 ba7816bf8f01…\)/,
    );
  });
});

describe('acceptsImages', () => {
  it.each([
    ['openai', 'gpt-4.1-mini', {}, true],
    ['openai', 'o3-mini', {}, false],
    ['anthropic', 'claude-haiku-4-5-20251001', {}, true],
    ['deepseek', 'deepseek-chat', {}, false],
    ['glm', 'glm-4.5v', {}, true],
    ['glm', 'glm-4.6', {}, false],
    ['kimi', 'moonshot-v1-32k-vision-preview', {}, true],
    ['vllm', 'qwen2-vl-7b', { 'vllm:qwen2-vl': true }, true],
    ['openai', 'gpt-4o', { 'openai:gpt-4o': false }, false],
  ] as const)('%s:%s', (provider, model, overrides, expected) => {
    expect(acceptsImages(provider, model, overrides)).toBe(expected);
  });
});

import { createHash } from 'node:crypto';
import { DagentError } from '../errors.js';
import type { ImageAttachment, ImageMediaType, ModelMessage } from '../model/model-message.js';

/** The largest image attached by default (`images.maxBytes`): 5 MB, Anthropic's own per-image limit. */
export const DEFAULT_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

/**
 * Where attached images are read: the workspace, through its path guard. `read` resolves `path`
 * (refusing one outside the workspace), and returns the file's size and, only when the size is
 * at most `maxBytes`, its bytes.
 */
export interface ImageSource {
  read(path: string, maxBytes: number): Promise<{ readonly path: string; readonly size: number; readonly content?: Uint8Array }>;
}

/** The images of an agent: where they are read and how large one may be. */
export interface ImageSupport {
  readonly source: ImageSource;
  readonly maxBytes: number;
  /** Images already loaded, base64 by hash: an agent reads each file once, not at every step. */
  readonly loaded?: Map<string, string>;
}

/** An `@image` reference that cannot be attached: one line naming the file and what to do. */
export class ImageReferenceError extends DagentError {
  constructor(readonly path: string, problem: string) {
    super(`@${path}: ${problem}`);
  }
}

/**
 * `@` starts a reference at the start of a text or after whitespace, an opening bracket or a
 * quote (`a@b.png` is no reference, `\@x.png` a literal); the path is `"quoted"` or runs to the
 * next space, bracket or quote, trailing sentence punctuation left out. The task parser of the
 * planners reads `@path` the same way; an image is a reference whose path ends in an image
 * extension.
 */
const REFERENCE = /(?<=^|[\s([{<'"`])@(?:"([^"\n]+)"|([^\s"'`()[\]{}<>,;]+))/g;
const TRAILING_PUNCTUATION = /[.,:;!?]+$/;
const IMAGE_EXTENSION = /\.(?:png|jpe?g|gif|webp)$/i;

/** The `@path` references of a text that name images (png, jpeg, gif, webp), in order, each once. */
export function findImageReferences(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(REFERENCE)) {
    const path = match[1] ?? (match[2] ?? '').replace(TRAILING_PUNCTUATION, '');
    if (IMAGE_EXTENSION.test(path) && !found.includes(path)) found.push(path);
  }
  return found;
}

/** The image type of some bytes by their signature, or undefined when they are none of the four. */
export function imageMediaType(bytes: Uint8Array): ImageMediaType | undefined {
  const starts = (...signature: number[]): boolean => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'image/webp';
  return undefined;
}

/** Megabytes for a message, one decimal: `7.3 MB`. */
export function formatMegabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The images a text references, read through the workspace guard and checked: each within
 * `maxBytes`, each really a png, jpeg, gif or webp (by its bytes, whatever its name says).
 * Returns references for the log (no bytes); throws `ImageReferenceError` on the first bad one.
 */
export async function attachImages(text: string, images: ImageSupport): Promise<ImageAttachment[]> {
  const attached: ImageAttachment[] = [];
  for (const reference of findImageReferences(text)) {
    const { content, path, size } = await readImage(images.source, reference, images.maxBytes);
    if (content === undefined) {
      throw new ImageReferenceError(reference, `the image has ${formatMegabytes(size)} (${size} bytes), more than the ${formatMegabytes(images.maxBytes)} cap (images.maxBytes in .dagent/config.json)`);
    }
    const mediaType = imageMediaType(content);
    if (mediaType === undefined) throw new ImageReferenceError(reference, 'not a PNG, JPEG, GIF or WebP image (its bytes say otherwise)');
    attached.push({ path, sha256: sha256(content), mediaType, bytes: content.byteLength });
  }
  return attached;
}

/**
 * The messages with the bytes of their images filled in, just before a request is sent. Each
 * file must still hash to what the log recorded: a changed or missing file is refused, never
 * silently sent as something else.
 */
export async function loadImageData(messages: readonly ModelMessage[], images: ImageSupport): Promise<ModelMessage[]> {
  const cache = images.loaded ?? new Map<string, string>();
  const loaded: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role !== 'user' || message.images === undefined) {
      loaded.push(message);
      continue;
    }
    const withData: ImageAttachment[] = [];
    for (const image of message.images) withData.push({ ...image, data: await loadOne(image, images, cache) });
    loaded.push({ ...message, images: withData });
  }
  return loaded;
}

async function loadOne(image: ImageAttachment, images: ImageSupport, cache: Map<string, string>): Promise<string> {
  const cached = cache.get(image.sha256);
  if (cached !== undefined) return cached;
  const { content } = await readImage(images.source, image.path, Math.max(images.maxBytes, image.bytes));
  if (content === undefined || sha256(content) !== image.sha256) {
    throw new ImageReferenceError(image.path, `the image changed since it was attached (the log holds sha256 ${image.sha256.slice(0, 12)}…): start a new run to show the new one`);
  }
  const data = Buffer.from(content).toString('base64');
  cache.set(image.sha256, data);
  return data;
}

async function readImage(source: ImageSource, path: string, maxBytes: number): Promise<{ path: string; size: number; content?: Uint8Array }> {
  try {
    return await source.read(path, maxBytes);
  } catch (error) {
    if (error instanceof ImageReferenceError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file in the workspace' : code === 'EISDIR' ? 'a directory, not an image' : error instanceof Error ? error.message : String(error);
    throw new ImageReferenceError(path, reason);
  }
}

function sha256(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

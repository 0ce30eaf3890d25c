import { open } from 'node:fs/promises';
import { DEFAULT_IMAGE_MAX_BYTES, ImageReferenceError, attachImages, findImageReferences, type ConfiguredProvider, type ImageSource, type ImageSupport } from '../../engine/index.js';
import { WorkspaceGuard } from '../../tools/index.js';
import type { CliContext } from '../context/cli-context.js';

/**
 * Images of this invocation: read from the workspace through its path guard (a path outside it,
 * through a link or not, is refused), at most `images.maxBytes` each (default 5 MB).
 */
export function createImageSupport(context: CliContext): ImageSupport {
  let guard: Promise<WorkspaceGuard> | undefined;
  const source: ImageSource = {
    async read(path, maxBytes) {
      const target = await (await (guard ??= WorkspaceGuard.open(context.workspace))).resolve(path, 'read');
      const file = await open(target.absolute, 'r');
      try {
        const info = await file.stat();
        if (info.isDirectory()) throw new ImageReferenceError(path, 'a directory, not an image');
        if (!info.isFile()) throw new ImageReferenceError(path, 'not a regular file');
        if (info.size > maxBytes) return { path: target.relative, size: info.size };
        return { path: target.relative, size: info.size, content: await file.readFile() };
      } finally {
        await file.close();
      }
    },
  };
  return { source, maxBytes: context.config.images?.maxBytes ?? DEFAULT_IMAGE_MAX_BYTES, loaded: new Map() };
}

/**
 * Checks a task's `@image` references before anything runs: each file readable inside the
 * workspace, within the cap, a real image, and the model that will see it able to take images.
 * Throws the one-line `ImageReferenceError` (exit 2) naming the first problem.
 */
export async function checkTaskImages(task: string, provider: ConfiguredProvider, images: ImageSupport): Promise<void> {
  const references = findImageReferences(task);
  if (references.length === 0) return;
  if (provider.acceptsImages?.(provider.model) !== true) {
    throw new ImageReferenceError(
      references[0]!,
      `${provider.modelId.id} does not accept images: use a model that does (e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5), declare it under "images.models" in .dagent/config.json, or write \\@ for a literal @`,
    );
  }
  await attachImages(task, images);
}

import picomatch from 'picomatch';
import { ToolError } from './tool-errors/index.js';

/**
 * A glob matcher for paths relative to the folder being searched. A pattern without `/` matches
 * file names at any depth (`*.ts`); one with `/` matches the relative path (`src/**\/*.ts`).
 */
export function createPathMatcher(pattern: string): (relativePath: string) => boolean {
  const trimmed = pattern.trim().replace(/^\.\//, '');
  if (trimmed === '') throw new ToolError('the glob pattern is empty');
  if (trimmed.startsWith('/') || trimmed.split('/').includes('..')) {
    throw new ToolError(`glob "${pattern}" must be relative to the searched folder (no leading / and no ..); set path to search elsewhere`);
  }
  const matcher = picomatch(trimmed, { dot: true, basename: !trimmed.includes('/') });
  return (relativePath) => matcher(relativePath);
}

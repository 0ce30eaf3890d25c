import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../../engine/index.js';

/** Why a file the user named could not be read or written, in words (the system's error code after them). */
export function fileProblem(error: unknown, writing = false): string {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === undefined ? undefined : (writing ? WRITE_REASONS[code] : undefined) ?? REASONS[code];
  if (reason !== undefined) return `${reason} (${code})`;
  return code ?? (error as Error).message;
}

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'a folder, not a file',
  ENOTDIR: 'a part of its path is not a folder',
  ELOOP: 'too many symbolic links on its path',
  EROFS: 'a read-only file system',
  ENOSPC: 'no space left on the device',
};

/** Writing, a missing file is its folder's absence. */
const WRITE_REASONS: Readonly<Record<string, string>> = { ENOENT: 'no such folder' };

/**
 * Writes what a command makes (`report --out`, `export FILE`, `trace --out`, `eval --out`) to the
 * file the user named, relative to the working directory: one that cannot be written is bad input
 * (exit 2), said in words with the folder it needs.
 */
export function writeUserFile(cwd: string, file: string, text: string, what: string): void {
  const path = resolve(cwd, file);
  try {
    writeFileSync(path, text);
  } catch (error) {
    const missingFolder = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `: make ${dirname(file) === '.' ? dirname(path) : dirname(file)} first` : '';
    throw new ConfigError(`cannot write ${what} to ${file}: ${fileProblem(error, true)}${missingFolder}`);
  }
}

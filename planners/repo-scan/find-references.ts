import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listWorkspaceFiles } from './list-workspace-files.js';

/** Files larger than this are not searched (bundles, data dumps). */
export const MAX_SEARCH_BYTES = 1024 * 1024;

/** A whole-word occurrence of a name in a file. */
export interface TextReference {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based, in UTF-16 code units. */
  readonly column: number;
  /** The line, trimmed. */
  readonly text: string;
}

export interface FindReferencesOptions {
  /** Workspace-relative files to search; default: every file the workspace lists (`.gitignore` honoured). */
  readonly files?: readonly string[];
  readonly signal?: AbortSignal;
}

/**
 * The grep-based fallback for languages without a resolver: every whole-word occurrence of
 * `symbol` in the workspace's text files, in path order. It finds comments and unrelated names
 * too — a list to read, not proof of use.
 */
export async function findReferences(root: string, symbol: string, options: FindReferencesOptions = {}): Promise<TextReference[]> {
  const files = options.files ?? (await listWorkspaceFiles(root, options.signal === undefined ? {} : { signal: options.signal })).map((file) => file.path);
  const references: TextReference[] = [];
  for (const file of [...files].sort()) {
    options.signal?.throwIfAborted();
    const content = await readFile(join(root, file));
    if (content.length > MAX_SEARCH_BYTES || isBinary(content)) continue;
    references.push(...findReferencesInText(file, content.toString('utf8'), symbol));
  }
  return references;
}

/** Whole-word occurrences of `symbol` in one file's text; identifier characters include `$` and `_`. */
export function findReferencesInText(file: string, text: string, symbol: string): TextReference[] {
  if (symbol === '') return [];
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_$])${escapeRegExp(symbol)}(?![\\p{L}\\p{N}_$])`, 'u');
  const references: TextReference[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const match = pattern.exec(line);
    if (match !== null) references.push({ file, line: index + 1, column: match.index + 1, text: line.trim() });
  });
  return references;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Git's heuristic: a NUL byte in the first 8000 bytes. */
function isBinary(content: Buffer): boolean {
  return content.subarray(0, 8000).includes(0);
}

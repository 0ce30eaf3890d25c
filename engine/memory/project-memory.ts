import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PromptSection } from '../context/index.js';

/** Project memory files, lowest priority first: a later file overrides an earlier one (SPEC §5.2). */
export const PROJECT_MEMORY_FILES = ['AGENTS.md', 'DAGENT.md', '.dagent/DAGENT.md', 'DAGENT.local.md', '.dagent/DAGENT.local.md'] as const;

/** The most of one memory file that is read; the rest is cut with a note. */
export const MAX_PROJECT_MEMORY_FILE_BYTES = 64 * 1024;

/** Where the section sits among the system prompt's sections: after the rules, before the rest. */
export const PROJECT_MEMORY_SECTION_ORDER = 50;

export interface ProjectMemoryFile {
  /** Relative to the workspace, as listed in `PROJECT_MEMORY_FILES`. */
  readonly path: string;
  readonly content: string;
  readonly truncated: boolean;
}

/** The workspace's project memory files that exist and are not empty, in priority order. */
export async function loadProjectMemory(workspace: string, signal?: AbortSignal): Promise<ProjectMemoryFile[]> {
  const files: ProjectMemoryFile[] = [];
  for (const path of PROJECT_MEMORY_FILES) {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(workspace, path), signal === undefined ? {} : { signal });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') continue;
      throw error;
    }
    const truncated = bytes.length > MAX_PROJECT_MEMORY_FILE_BYTES;
    const content = bytes.subarray(0, MAX_PROJECT_MEMORY_FILE_BYTES).toString('utf8').trim();
    if (content !== '') files.push({ path, content, truncated });
  }
  return files;
}

/**
 * The files as one static system-prompt section, each under a header naming it, in priority
 * order. Undefined when there are none. `{{` is broken up so a file's text is never read as a
 * template variable of the system prompt.
 */
export function projectMemorySection(files: readonly ProjectMemoryFile[]): PromptSection | undefined {
  if (files.length === 0) return undefined;
  const parts = files.map((file) => {
    const note = file.truncated ? `\n\n[${file.path} is longer than ${MAX_PROJECT_MEMORY_FILE_BYTES} bytes; the rest was left out]` : '';
    return `## ${file.path}\n\n${file.content}${note}`;
  });
  const text = [
    '# Project memory',
    'Instructions from the project memory files below, in priority order: where they disagree, a later file overrides an earlier one.',
    ...parts,
  ].join('\n\n');
  return { id: 'project-memory', order: PROJECT_MEMORY_SECTION_ORDER, text: text.replace(/\{\{/g, '{\u200b{') };
}

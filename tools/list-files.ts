import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, loadToolDescription } from './define-tool.js';
import { createPathMatcher } from './path-pattern.js';
import { ToolError } from './tool-errors/index.js';
import { createWalkSummary, walkWorkspace, type EntryKind } from './walk-workspace.js';

/** Entries one list_files call shows. */
export const MAX_LIST_ENTRIES = 1_000;

const KIND_LABEL: Readonly<Record<EntryKind, string>> = { file: 'file', dir: 'dir ', symlink: 'link', other: 'other' };

const listFilesArgs = z.strictObject({
  path: z.string().optional().describe('folder to list, relative to the workspace root; default: the root'),
  pattern: z.string().optional().describe('glob relative to path, e.g. "*.ts" (any depth) or "src/**/*.test.ts"'),
});

export const listFilesTool = defineTool({
  name: 'list_files',
  description: loadToolDescription(import.meta.url, 'list-files.md'),
  args: listFilesArgs,
  risk: 'read',
  summarize: (args) => `list_files ${args.path ?? '.'}${args.pattern === undefined ? '' : ` ${args.pattern}`}`,
  async execute(args, context) {
    const start = await context.workspace.resolve(args.path ?? '.', 'read');
    const matches = args.pattern === undefined ? () => true : createPathMatcher(args.pattern);
    const info = await stat(start.absolute).catch(() => undefined);
    if (info === undefined) throw new ToolError(`${start.relative}: no such file or directory`);
    if (!info.isDirectory()) return { content: `file ${start.relative}`, meta: { path: start.relative, entries: 1 } };

    const lines: string[] = [];
    let matched = 0;
    const summary = createWalkSummary();
    const prefix = start.relative === '.' ? '' : `${start.relative}/`;
    for await (const entry of walkWorkspace(context.workspace, start, { signal: context.signal }, summary)) {
      if (!matches(entry.relative.slice(prefix.length))) continue;
      matched += 1;
      if (lines.length < MAX_LIST_ENTRIES) lines.push(`${KIND_LABEL[entry.kind]} ${entry.relative}${entry.kind === 'dir' ? '/' : ''}`);
    }
    const notes: string[] = [];
    if (summary.startIgnored) notes.push(`(${start.relative} is ignored by .gitignore; listed because it was asked for by name)`);
    if (matched > lines.length) notes.push(`(${matched - lines.length} more entries not shown; narrow path or pattern)`);
    if (summary.stoppedEarly) notes.push('(the walk stopped early: the folder is very large; narrow path or pattern)');
    const where = `${start.relative}${args.pattern === undefined ? '' : ` matching ${args.pattern}`}`;
    const body = lines.length === 0 ? `no entries under ${where} (.git and .gitignored paths are skipped)` : lines.join('\n');
    return {
      content: [body, ...notes].join('\n'),
      meta: { path: start.relative, entries: matched, truncated: matched > lines.length || summary.stoppedEarly },
    };
  },
});

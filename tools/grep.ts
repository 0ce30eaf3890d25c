import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, loadToolDescription, type Tool, type ToolContext } from './define-tool.js';
import { createPathMatcher } from './path-pattern.js';
import { looksBinary, BINARY_SNIFF_BYTES } from './text-file.js';
import { createLineMatcher, type LineMatcher } from './regex-worker.js';
import { ToolError } from './tool-errors/index.js';
import { createWalkSummary, walkWorkspace } from './walk-workspace.js';
import type { WorkspacePath } from './workspace/index.js';

/** Matching lines one grep call shows. */
export const MAX_GREP_MATCHES = 250;
/** Characters of a matching line shown. */
export const MAX_GREP_LINE_CHARS = 300;
/** Larger files are skipped (generated bundles, logs). */
export const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
/** Matching time one grep call may use; past it the pattern is stopped as catastrophic (see `createLineMatcher`). */
export const GREP_MATCH_BUDGET_MS = 10_000;

type GrepArgs = z.infer<typeof grepArgs>;

const grepArgs = z.strictObject({
  pattern: z.string().min(1).describe('JavaScript regular expression matched against each line'),
  path: z.string().optional().describe('folder or file to search, relative to the workspace root; default: the root'),
  glob: z.string().optional().describe('only files matching this glob, e.g. "*.ts" or "src/**/*.ts"'),
});

export interface GrepToolOptions {
  /** Matching time one call may use (default `GREP_MATCH_BUDGET_MS`). */
  readonly matchBudgetMs?: number;
}

/** The `grep` tool; `grepTool` is it with the default budget. */
export function createGrepTool(options: GrepToolOptions = {}): Tool<GrepArgs> {
  const budgetMs = options.matchBudgetMs ?? GREP_MATCH_BUDGET_MS;
  return defineTool({
    name: 'grep',
    description: loadToolDescription(import.meta.url, 'grep.md'),
    args: grepArgs,
    risk: 'read',
    summarize: (args) => `grep ${args.pattern}${args.path === undefined ? '' : ` in ${args.path}`}`,
    async execute(args, context) {
      compilePattern(args.pattern);
      const start = await context.workspace.resolve(args.path ?? '.', 'read');
      const matchesGlob = args.glob === undefined ? () => true : createPathMatcher(args.glob);
      const info = await stat(start.absolute).catch(() => undefined);
      if (info === undefined) throw new ToolError(`${start.relative}: no such file or directory`);

      const search = new Search(createLineMatcher(args.pattern, { budgetMs, signal: context.signal }));
      try {
        await searchFrom(search, start, info.isDirectory(), matchesGlob, context);
      } finally {
        await search.matcher.close();
      }
      return search.output(args.pattern, start);
    },
  });
}

export const grepTool = createGrepTool();

/** Searches the file at `start`, or every file under it that the glob covers, until the matches are full. */
async function searchFrom(search: Search, start: WorkspacePath, isDirectory: boolean, matchesGlob: (path: string) => boolean, context: ToolContext): Promise<void> {
  if (isDirectory) {
    const summary = createWalkSummary();
    const prefix = start.relative === '.' ? '' : `${start.relative}/`;
    for await (const entry of walkWorkspace(context.workspace, start, { signal: context.signal }, summary)) {
      if (entry.kind !== 'file' || !matchesGlob(entry.relative.slice(prefix.length))) continue;
      await search.file(entry.relative, entry.absolute);
      if (search.full) break;
    }
    if (summary.stoppedEarly) search.notes.push('(the walk stopped early: the folder is very large; narrow path or glob)');
  } else {
    await search.file(start.relative, start.absolute);
  }
}

/** The regex, or a clear error the model can fix. */
export function compilePattern(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error);
    throw new ToolError(
      `invalid regular expression ${JSON.stringify(pattern)}: ${reason}. grep takes a JavaScript regular expression; escape ( ) [ ] { } . * + ? | with a backslash to match them literally`,
    );
  }
}

class Search {
  readonly lines: string[] = [];
  readonly notes: string[] = [];
  filesSearched = 0;
  skipped = 0;
  matches = 0;
  full = false;

  constructor(readonly matcher: LineMatcher) {}

  async file(relative: string, absolute: string): Promise<void> {
    const info = await stat(absolute).catch(() => undefined);
    if (info === undefined || !info.isFile()) return;
    if (info.size > MAX_GREP_FILE_BYTES) {
      this.skipped += 1;
      return;
    }
    const bytes = await readFile(absolute).catch(() => undefined);
    if (bytes === undefined || looksBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))) return;
    this.filesSearched += 1;
    const room = MAX_GREP_MATCHES - this.lines.length;
    const { matches, total } = await this.matcher.match(bytes.toString('utf8'), room);
    this.matches += total;
    for (const { index, line } of matches) {
      const shown = line.length > MAX_GREP_LINE_CHARS ? `${line.slice(0, MAX_GREP_LINE_CHARS)}…` : line;
      this.lines.push(`${relative}:${index + 1}:${shown}`);
    }
    if (total > room) this.full = true;
  }

  output(pattern: string, start: WorkspacePath): { content: string; meta: Record<string, unknown> } {
    const notes = [...this.notes];
    if (this.full) notes.push(`(stopped after ${MAX_GREP_MATCHES} matches; narrow the pattern, path or glob to see the rest)`);
    if (this.skipped > 0) notes.push(`(${this.skipped} files larger than ${MAX_GREP_FILE_BYTES / 1024 / 1024} MB were skipped)`);
    const body =
      this.lines.length === 0
        ? `no matches for ${JSON.stringify(pattern)} in ${start.relative} (${this.filesSearched} files searched; .git, .gitignored and binary files are skipped)`
        : this.lines.join('\n');
    return {
      content: [body, ...notes].join('\n'),
      meta: { path: start.relative, matches: this.lines.length, filesSearched: this.filesSearched, truncated: this.full },
    };
  }
}

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { defineTool, loadToolDescription } from './define-tool.js';
import { binaryContentType, formatBytes, isBinaryFile } from './text-file.js';
import { ToolError } from './tool-errors/index.js';

/** Lines one read_file call shows at most. */
export const MAX_READ_LINES = 2_000;
/** Characters of one line shown before it is cut. */
export const MAX_LINE_CHARS = 2_000;
/** Characters one read_file call shows at most, so a page is never truncated by the runtime. */
export const MAX_READ_CHARS = 45_000;

const readFileArgs = z.strictObject({
  path: z.string().min(1).describe('file path relative to the workspace root'),
  offset: z.number().int().min(1).optional().describe('first line to show, 1-based (default 1)'),
  limit: z.number().int().min(1).optional().describe(`number of lines to show (default and maximum ${MAX_READ_LINES})`),
});

export const readFileTool = defineTool({
  name: 'read_file',
  description: loadToolDescription(import.meta.url, 'read-file.md'),
  args: readFileArgs,
  risk: 'read',
  summarize: (args) => `read_file ${args.path}`,
  async execute(args, context) {
    const file = await context.workspace.resolve(args.path, 'read');
    const info = await stat(file.absolute);
    if (info.isDirectory()) throw new ToolError(`${file.relative} is a directory; list_files lists its contents`);
    if (!info.isFile()) throw new ToolError(`${file.relative} is not a regular file`);
    if (await isBinaryFile(file.absolute)) {
      const contentType = binaryContentType(file.relative);
      throw new ToolError(`${file.relative} is a binary file (${contentType}, ${formatBytes(info.size)}); read_file shows text files only`);
    }
    const first = args.offset ?? 1;
    const limit = Math.min(args.limit ?? MAX_READ_LINES, MAX_READ_LINES);
    const page = await readPage(file.absolute, first, limit, context.signal);
    const meta = { path: file.relative, contentType: 'text/plain', totalLines: page.totalLines, originalLength: page.totalChars };
    if (page.totalLines === 0) return { content: `(${file.relative} is empty)`, meta: { ...meta, truncated: false } };
    if (page.lines.length === 0) {
      throw new ToolError(`offset ${first} is past the end of ${file.relative}, which has ${page.totalLines} lines`);
    }
    const last = first + page.lines.length - 1;
    const numbered = page.lines.map((line, index) => `${String(first + index).padStart(6)}\t${line}`);
    const partial = first > 1 || last < page.totalLines || page.cutLines > 0;
    if (last < page.totalLines) {
      numbered.push(`(lines ${first}-${last} of ${page.totalLines}; call read_file with offset ${last + 1} to read on)`);
    } else if (first > 1) {
      numbered.push(`(lines ${first}-${last} of ${page.totalLines}; end of file)`);
    }
    if (page.cutLines > 0) numbered.push(`(${page.cutLines} long lines were cut at ${MAX_LINE_CHARS} characters)`);
    return { content: numbered.join('\n'), meta: { ...meta, startLine: first, endLine: last, truncated: partial } };
  },
});

interface Page {
  readonly lines: string[];
  readonly totalLines: number;
  readonly totalChars: number;
  readonly cutLines: number;
}

/** Streams the file once: keeps the requested lines, counts all of them. */
async function readPage(absolute: string, first: number, limit: number, signal: AbortSignal): Promise<Page> {
  const stream = createReadStream(absolute, { encoding: 'utf8', signal });
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  const lines: string[] = [];
  let totalLines = 0;
  let totalChars = 0;
  let shownChars = 0;
  let cutLines = 0;
  let full = false;
  try {
    for await (const line of reader) {
      totalLines += 1;
      totalChars += line.length + 1;
      if (full || totalLines < first) continue;
      const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [line cut]` : line;
      if (lines.length >= limit || (lines.length > 0 && shownChars + shown.length > MAX_READ_CHARS)) {
        full = true;
        continue;
      }
      if (shown !== line) cutLines += 1;
      lines.push(shown);
      shownChars += shown.length + 8;
    }
  } finally {
    reader.close();
    stream.destroy();
  }
  return { lines, totalLines, totalChars: Math.max(0, totalChars - 1), cutLines };
}

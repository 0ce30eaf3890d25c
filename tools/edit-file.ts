import { readFile, stat } from 'node:fs/promises';
import { structuredPatch } from 'diff';
import { z } from 'zod';
import { findClosestLine } from './closest-line.js';
import { defineTool, loadToolDescription } from './define-tool.js';
import { looksBinary } from './text-file.js';
import { ToolError, errorCode } from './tool-errors/index.js';
import { assessWrite, resolveWritablePath, writeWorkspaceFile } from './write-access.js';

/** Diff lines shown after an edit. */
export const MAX_EDIT_DIFF_LINES = 80;
/** Line numbers listed when old_string is not unique. */
const MAX_LISTED_OCCURRENCES = 20;
/**
 * Larger files are refused: edit_file holds the file, the result and a diff in memory, and a
 * model-driven edit of a 50 MB file is a mistake more often than not.
 */
export const MAX_EDIT_FILE_BYTES = 10 * 1024 * 1024;
/**
 * Above this many replacements, or this file size, the result shows the changed lines directly
 * instead of a computed diff: a line diff costs time in proportion to the file times the number
 * of changed lines, which is quadratic for a replace_all over a large file.
 */
const MAX_DIFFED_REPLACEMENTS = 50;
const MAX_DIFFED_CHARS = 1024 * 1024;

const editFileArgs = z.strictObject({
  path: z.string().min(1).describe('file path relative to the workspace root'),
  old_string: z.string().describe('exact text to find (must be unique unless replace_all)'),
  new_string: z.string().describe('replacement text'),
  replace_all: z.boolean().optional().describe('replace every occurrence (default false)'),
});

export const editFileTool = defineTool({
  name: 'edit_file',
  description: loadToolDescription(import.meta.url, 'edit-file.md'),
  args: editFileArgs,
  risk: 'write',
  summarize: (args) => `edit_file ${args.path} (${args.replace_all === true ? 'every occurrence of ' : ''}${oneLine(args.old_string)} → ${oneLine(args.new_string)})`,
  assess: (args, context) => assessWrite(context, args.path),
  async execute(args, context) {
    const target = await resolveWritablePath(context, args.path);
    let bytes: Buffer;
    try {
      const info = await stat(target.absolute);
      if (!info.isFile()) throw new ToolError(`${target.relative} is not a regular file; edit_file changes text files only`);
      if (info.size > MAX_EDIT_FILE_BYTES) {
        throw new ToolError(
          `${target.relative} is ${formatMegabytes(info.size)}; edit_file edits files up to ${formatMegabytes(MAX_EDIT_FILE_BYTES)}. Change a file this large with a command (run_command, e.g. sed), or split it`,
        );
      }
      bytes = await readFile(target.absolute);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') throw new ToolError(`${target.relative} does not exist; create it with write_file`);
      throw error;
    }
    if (looksBinary(bytes)) throw new ToolError(`${target.relative} is a binary file; edit_file changes text files only`);
    const before = bytes.toString('utf8');
    const edit = planEdit(before, args.old_string, args.new_string, args.replace_all === true, target.relative);
    await writeWorkspaceFile(context, target, edit.after);
    const diff =
      edit.lines.length <= MAX_DIFFED_REPLACEMENTS && before.length + edit.after.length <= MAX_DIFFED_CHARS
        ? renderDiff(target.relative, before, edit.after)
        : renderChangedLines(before, edit);
    const where = edit.lines.length === 1 ? `line ${edit.lines[0]}` : `lines ${edit.lines.join(', ')}`;
    return {
      content: `edited ${target.relative}: replaced ${edit.lines.length} occurrence${edit.lines.length === 1 ? '' : 's'} (${where})\n${diff}`,
      meta: { path: target.relative, replacements: edit.lines.length },
    };
  },
});

export interface PlannedEdit {
  readonly after: string;
  /** 1-based line numbers where replaced occurrences start. */
  readonly lines: readonly number[];
  /** The text searched for and put in its place (in the file's own line endings). */
  readonly search: string;
  readonly replacement: string;
}

/** The file after the edit, or a `ToolError` that tells the model how to fix the call. Pure. */
export function planEdit(before: string, oldString: string, newString: string, replaceAll: boolean, displayPath: string): PlannedEdit {
  if (oldString === '') throw new ToolError('old_string is empty; to create or overwrite a whole file use write_file');
  if (oldString === newString) throw new ToolError('old_string and new_string are identical; nothing would change');
  let search = oldString;
  let replacement = newString;
  let offsets = occurrences(before, search);
  // Models send \n; a CRLF file holds \r\n. Match in the file's own line endings.
  if (offsets.length === 0 && before.includes('\r\n') && !oldString.includes('\r\n')) {
    search = oldString.replace(/\n/g, '\r\n');
    replacement = newString.replace(/\n/g, '\r\n');
    offsets = occurrences(before, search);
  }
  if (offsets.length === 0) throw new ToolError(notFoundMessage(before, oldString, displayPath));
  const lines = linesAt(before, offsets);
  if (offsets.length > 1 && !replaceAll) {
    const listed = lines.slice(0, MAX_LISTED_OCCURRENCES).join(', ') + (lines.length > MAX_LISTED_OCCURRENCES ? ', …' : '');
    throw new ToolError(
      `old_string occurs ${offsets.length} times in ${displayPath} (lines ${listed}); include more surrounding lines to make it unique, or set replace_all to true to change every occurrence`,
    );
  }
  const after = before.split(search).join(replacement);
  return { after, lines, search, replacement };
}

function notFoundMessage(content: string, oldString: string, displayPath: string): string {
  const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();
  if (squash(content).includes(squash(oldString))) {
    return `old_string was not found in ${displayPath} exactly, but it matches when whitespace is ignored: copy the indentation and line breaks exactly as read_file shows them`;
  }
  const closest = findClosestLine(content, oldString);
  const hint = closest === undefined ? 'read the file again and copy the text exactly' : `the closest line is ${closest.line}: ${JSON.stringify(closest.text.trim())}`;
  return `old_string was not found in ${displayPath}; ${hint}`;
}

function occurrences(text: string, search: string): number[] {
  const offsets: number[] = [];
  for (let at = text.indexOf(search); at >= 0; at = text.indexOf(search, at + search.length)) offsets.push(at);
  return offsets;
}

/** The 1-based line of each offset (ascending), in one pass over the text: linear however many offsets there are. */
function linesAt(text: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let position = 0;
  for (const offset of offsets) {
    for (let newline = text.indexOf('\n', position); newline !== -1 && newline < offset; newline = text.indexOf('\n', newline + 1)) {
      line += 1;
      position = newline + 1;
    }
    lines.push(line);
  }
  return lines;
}

/**
 * The changed lines of a large edit, in linear time: for a one-line old_string and new_string,
 * each affected line before and after; otherwise where the replacements start.
 */
function renderChangedLines(before: string, edit: PlannedEdit): string {
  const distinct = [...new Set(edit.lines)];
  const header = `@@ ${edit.lines.length} replacements on ${distinct.length} lines (the diff of an edit this large is not computed) @@`;
  if (edit.search.includes('\n') || edit.replacement.includes('\n')) return `${header}\nat lines ${distinct.slice(0, MAX_LISTED_OCCURRENCES).join(', ')}${distinct.length > MAX_LISTED_OCCURRENCES ? ', …' : ''}`;
  const shownLines = distinct.slice(0, MAX_EDIT_DIFF_LINES / 2);
  const text = lineTexts(before, shownLines);
  const body = shownLines.flatMap((line, index) => {
    const old = text[index]!.replace(/\r$/, '');
    return [`-${old}`, `+${old.split(edit.search).join(edit.replacement)}`];
  });
  const more = distinct.length - shownLines.length;
  return [header, ...body, ...(more > 0 ? [`(… ${more} more changed lines)`] : [])].join('\n');
}

/** The text of the given 1-based lines (ascending), in one pass. */
function lineTexts(text: string, lines: readonly number[]): string[] {
  const texts: string[] = [];
  let line = 1;
  let start = 0;
  for (const wanted of lines) {
    while (line < wanted) {
      start = text.indexOf('\n', start) + 1;
      line += 1;
    }
    const end = text.indexOf('\n', start);
    texts.push(text.slice(start, end === -1 ? text.length : end));
  }
  return texts;
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

function renderDiff(path: string, before: string, after: string): string {
  const patch = structuredPatch(path, path, before, after, '', '', { context: 2 });
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines.map((line) => line.replace(/\r$/, '')));
  }
  if (lines.length <= MAX_EDIT_DIFF_LINES) return lines.join('\n');
  return `${lines.slice(0, MAX_EDIT_DIFF_LINES).join('\n')}\n(… ${lines.length - MAX_EDIT_DIFF_LINES} more diff lines)`;
}

function oneLine(text: string): string {
  const line = JSON.stringify(text);
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}

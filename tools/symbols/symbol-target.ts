import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolContext } from '../define-tool.js';
import { ToolError } from '../tool-errors/index.js';
import type { SymbolTarget } from './symbol-service.js';

/** The arguments that name a symbol: a path and the symbol, or a path and a position in it. */
export const symbolTargetArgs = z
  .strictObject({
    path: z.string().min(1).describe('file relative to the workspace root'),
    symbol: z.string().min(1).optional().describe('the symbol declared or used in that file: `Invoice`, or a member `Invoice.total`'),
    line: z.number().int().min(1).optional().describe('1-based line of an occurrence (instead of symbol, or to pick one occurrence of it)'),
    column: z.number().int().min(1).optional().describe('1-based column on that line (default: where `symbol` appears on it)'),
  })
  .refine((args) => args.symbol !== undefined || args.line !== undefined, { message: 'give symbol, or line (and column)' });

export type SymbolTargetArgs = z.output<typeof symbolTargetArgs>;

/**
 * Where to ask: `path#symbol` when only the symbol is given; otherwise the position on `line`,
 * at `column`, or where the symbol's last name part appears on that line, or its first word.
 */
export async function resolveSymbolTarget(args: SymbolTargetArgs, context: ToolContext): Promise<{ target: SymbolTarget; label: string }> {
  const file = await context.workspace.resolve(args.path, 'read');
  if (args.line === undefined) return { target: { symbol: `${file.relative}#${args.symbol!}` }, label: `${file.relative}#${args.symbol!}` };
  const lines = (await readFile(file.absolute, 'utf8')).split('\n');
  const text = lines[args.line - 1];
  if (text === undefined) throw new ToolError(`line ${args.line} is past the end of ${file.relative}, which has ${lines.length} lines`);
  const column = args.column ?? columnOf(text, args.symbol) ?? firstWordColumn(text);
  if (column === undefined) throw new ToolError(`line ${args.line} of ${file.relative} is empty; give a line with the symbol on it`);
  return { target: { file: file.relative, line: args.line, column }, label: `${file.relative}:${args.line}:${column}${args.symbol === undefined ? '' : ` (${args.symbol})`}` };
}

function columnOf(text: string, symbol: string | undefined): number | undefined {
  if (symbol === undefined) return undefined;
  const name = symbol.split('.').pop()!;
  const match = new RegExp(`(?<![A-Za-z0-9_$])${escapeRegExp(name)}(?![A-Za-z0-9_$])`).exec(text);
  if (match === null) throw new ToolError(`"${name}" does not appear on that line: ${text.trim().slice(0, 120)}`);
  return match.index + 1;
}

function firstWordColumn(text: string): number | undefined {
  const index = text.search(/[A-Za-z_$]/);
  return index < 0 ? undefined : index + 1;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

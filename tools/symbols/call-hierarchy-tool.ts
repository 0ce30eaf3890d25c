import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool.js';
import { capLines, filesOf, formatLocation } from './format-locations.js';
import { LANGUAGE_SERVICE_PROVIDER, type SymbolCallHierarchy, type SymbolCallItem, type SymbolServiceSource } from './symbol-service.js';
import { resolveSymbolTarget, symbolTargetArgs } from './symbol-target.js';

/** Most callers or callees one answer shows per direction. */
export const MAX_CALLS = 50;

const callHierarchyArgs = z
  .strictObject({
    ...symbolTargetArgs.shape,
    direction: z.enum(['incoming', 'outgoing', 'both']).optional().describe('`incoming` (who calls it), `outgoing` (what it calls) or `both` (default)'),
  })
  .refine((args) => args.symbol !== undefined || args.line !== undefined, { message: 'give symbol, or line (and column)' });

/** `call_hierarchy`: the callers and callees of a TypeScript/JavaScript function or method, from the language service. Read-only. */
export function createCallHierarchyTool(service: SymbolServiceSource): Tool<z.output<typeof callHierarchyArgs>> {
  return defineTool({
    name: 'call_hierarchy',
    description:
      'Who calls a TypeScript/JavaScript function or method (incoming) and what it calls (outgoing), with the lines of the calls. Name it by `path` + `symbol` (`priceOf`, `Cart.total`), or by `path` + `line` (+ `column`).',
    args: callHierarchyArgs,
    risk: 'read',
    provider: LANGUAGE_SERVICE_PROVIDER,
    summarize: (args) => `call_hierarchy ${args.path} ${args.symbol ?? `line ${args.line}`} ${args.direction ?? 'both'}`,
    async execute(args, context) {
      const { target, label } = await resolveSymbolTarget(args, context);
      const directions = args.direction === undefined || args.direction === 'both' ? (['incoming', 'outgoing'] as const) : ([args.direction] as const);
      const sections: string[] = [];
      const files = new Set<string>();
      let truncated = false;
      let item: SymbolCallItem | undefined;
      for (const direction of directions) {
        const hierarchy: SymbolCallHierarchy | undefined = await (await service(context.workspace.root)).callHierarchy(target, direction);
        if (hierarchy === undefined) return { content: `${label} is not a function or method TypeScript can follow calls of`, meta: { path: args.path, count: 0 } };
        item = hierarchy.item;
        for (const file of filesOf(hierarchy.calls)) files.add(file);
        const lines = hierarchy.calls.map((call) => `${describe(call)}  ${formatLocation(call)}  (${call.sites.length === 1 ? 'call at line' : 'calls at lines'} ${call.sites.map((site) => site.line).join(', ')})`);
        const shown = capLines(lines, MAX_CALLS, direction === 'incoming' ? 'callers' : 'callees');
        truncated ||= shown.truncated;
        sections.push(`${direction === 'incoming' ? 'called by' : 'calls'} (${hierarchy.calls.length}):\n${lines.length === 0 ? '(none)' : shown.text}`);
      }
      return { content: `${describe(item!)} at ${formatLocation(item!)}\n\n${sections.join('\n\n')}`, meta: { path: args.path, files: [...files], truncated } };
    },
  });
}

function describe(item: SymbolCallItem): string {
  return `${item.kind} ${item.container === '' ? '' : `${item.container}.`}${item.name}`;
}

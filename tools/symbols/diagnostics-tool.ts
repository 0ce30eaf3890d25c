import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool.js';
import { capLines, filesOf, formatLocation } from './format-locations.js';
import { LANGUAGE_SERVICE_PROVIDER, type SymbolDiagnostic, type SymbolServiceSource } from './symbol-service.js';

/** Most problems one answer shows. */
export const MAX_DIAGNOSTICS = 100;
/** Most files one call names. */
export const MAX_DIAGNOSTIC_PATHS = 50;

const diagnosticsArgs = z.strictObject({
  paths: z.array(z.string().min(1)).max(MAX_DIAGNOSTIC_PATHS).optional().describe('files relative to the workspace root; none for the whole project (slower)'),
});

/**
 * `diagnostics`: TypeScript's errors and warnings for some files or the whole project, as the files
 * are on disk now (so after an edit it answers "does this still compile?"). Read-only.
 */
export function createDiagnosticsTool(service: SymbolServiceSource): Tool<z.output<typeof diagnosticsArgs>> {
  return defineTool({
    name: 'diagnostics',
    description:
      'TypeScript/JavaScript errors and warnings (syntax and types) as the files are now, e.g. after an edit: path:line:column, severity, TS code, message and the line. Give `paths` to check those files, or nothing for the whole project.',
    args: diagnosticsArgs,
    risk: 'read',
    provider: LANGUAGE_SERVICE_PROVIDER,
    summarize: (args) => `diagnostics ${args.paths === undefined || args.paths.length === 0 ? '(project)' : args.paths.join(' ')}`,
    async execute(args, context) {
      const files: string[] = [];
      for (const path of args.paths ?? []) files.push((await context.workspace.resolve(path, 'read')).relative);
      const scope = files.length === 0 ? 'the project' : files.join(', ');
      const found = await (await service(context.workspace.root)).diagnostics(files.length === 0 ? undefined : files);
      const errors = found.filter((diagnostic) => diagnostic.severity === 'error').length;
      const meta = { errors, warnings: found.length - errors, files: filesOf(found) };
      if (found.length === 0) return { content: `no errors or warnings in ${scope}`, meta: { ...meta, truncated: false } };
      const shown = capLines(found.map(formatDiagnostic), MAX_DIAGNOSTICS, 'problems');
      return { content: `${count(errors, 'error')}, ${count(found.length - errors, 'warning')} in ${scope}:\n${shown.text}`, meta: { ...meta, truncated: shown.truncated } };
    },
  });
}

/** `src/a.ts:3:7 error TS2322: Type 'string' is not assignable to type 'number'.` and the line under it. */
function formatDiagnostic(diagnostic: SymbolDiagnostic): string {
  const place = formatLocation({ ...diagnostic, text: '' }).trimEnd();
  const message = diagnostic.message.replace(/\n/g, '\n    ');
  return `${place} ${diagnostic.severity} TS${diagnostic.code}: ${message}${diagnostic.text === '' ? '' : `\n    ${diagnostic.text}`}`;
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

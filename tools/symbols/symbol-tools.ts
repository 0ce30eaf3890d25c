import { z } from 'zod';
import { defineTool, type Tool } from '../define-tool.js';
import { createCallHierarchyTool } from './call-hierarchy-tool.js';
import { createDiagnosticsTool } from './diagnostics-tool.js';
import { capLines, filesOf, formatLocation } from './format-locations.js';
import { LANGUAGE_SERVICE_PROVIDER, type SymbolServiceSource } from './symbol-service.js';
import { resolveSymbolTarget, symbolTargetArgs } from './symbol-target.js';

/** Most lines one symbol tool shows. */
export const MAX_DEFINITIONS = 20;
export const MAX_REFERENCES = 100;
export const MAX_WORKSPACE_SYMBOLS = 50;

/** The symbol tools' names, for node allow-lists. */
export const SYMBOL_TOOL_NAMES = ['find_definition', 'find_references', 'workspace_symbols', 'hover', 'diagnostics', 'call_hierarchy'] as const;

/**
 * `find_definition`, `find_references`, `workspace_symbols`, `hover`, `diagnostics` and `call_hierarchy` over the workspace's
 * TypeScript / JavaScript language service (`service`, over the calling node's workspace: its own
 * worktree under `isolation: worktree`, started on first use and shared by every call there). Read-only: they need no approval. Each answer lists paths, 1-based lines and
 * columns and the line's text, capped with a note and `meta.truncated`.
 */
export function createSymbolTools(service: SymbolServiceSource): Tool[] {
  const findDefinition = defineTool({
    name: 'find_definition',
    description: 'Where a TypeScript/JavaScript symbol is defined (through imports and re-exports): path, line, column and the line. Name it by `path` + `symbol` (`Invoice`, `Invoice.total`), or by `path` + `line` (+ `column`) of a place it is used.',
    args: symbolTargetArgs,
    risk: 'read',
    provider: LANGUAGE_SERVICE_PROVIDER,
    summarize: (args) => `find_definition ${args.path} ${args.symbol ?? `line ${args.line}`}`,
    async execute(args, context) {
      const { target, label } = await resolveSymbolTarget(args, context);
      const found = await (await service(context.workspace.root)).definition(target);
      if (found.length === 0) return { content: `no definition found for ${label}`, meta: { path: args.path, count: 0 } };
      const shown = capLines(found.map((location) => formatLocation(location)), MAX_DEFINITIONS, 'definitions');
      return { content: `${found.length === 1 ? 'definition' : `${found.length} definitions`} of ${label}:\n${shown.text}`, meta: { path: args.path, count: found.length, files: filesOf(found), truncated: shown.truncated } };
    },
  });

  const findReferences = defineTool({
    name: 'find_references',
    description: 'Every reference to a TypeScript/JavaScript symbol across the workspace, the declaration included ([def], [write] mark them): path, line, column and the line. Name it by `path` + `symbol` (`Invoice`, `Invoice.total`), or by `path` + `line` (+ `column`).',
    args: symbolTargetArgs,
    risk: 'read',
    provider: LANGUAGE_SERVICE_PROVIDER,
    summarize: (args) => `find_references ${args.path} ${args.symbol ?? `line ${args.line}`}`,
    async execute(args, context) {
      const { target, label } = await resolveSymbolTarget(args, context);
      const found = await (await service(context.workspace.root)).references(target);
      if (found.length === 0) return { content: `no references found for ${label}`, meta: { path: args.path, count: 0 } };
      const lines = found.map((location) => formatLocation(location, `${location.isDefinition ? ' [def]' : ''}${location.isWrite && !location.isDefinition ? ' [write]' : ''}`));
      const shown = capLines(lines, MAX_REFERENCES, 'references');
      const files = filesOf(found);
      return {
        content: `${found.length} references to ${label} in ${files.length} files:\n${shown.text}`,
        meta: { path: args.path, count: found.length, files, truncated: shown.truncated },
      };
    },
  });

  const workspaceSymbols = defineTool({
    name: 'workspace_symbols',
    description: 'Finds TypeScript/JavaScript declarations (classes, functions, methods, interfaces, variables, ...) by name across the workspace: kind, name, container, path, line and the line.',
    args: z.strictObject({ query: z.string().min(1).max(200).describe('a name or part of one, e.g. `Invoice` or `total`') }),
    risk: 'read',
    provider: LANGUAGE_SERVICE_PROVIDER,
    summarize: (args) => `workspace_symbols ${JSON.stringify(args.query)}`,
    async execute(args, context) {
      const found = await (await service(context.workspace.root)).workspaceSymbols(args.query, MAX_WORKSPACE_SYMBOLS + 1);
      if (found.length === 0) return { content: `no symbols match "${args.query}"`, meta: { count: 0 } };
      const lines = found.map((symbol) => `${symbol.kind} ${symbol.container === '' ? '' : `${symbol.container}.`}${symbol.name}  ${formatLocation(symbol)}`);
      const shown = capLines(lines, MAX_WORKSPACE_SYMBOLS, 'symbols');
      return { content: `symbols matching "${args.query}":\n${shown.text}`, meta: { count: Math.min(found.length, MAX_WORKSPACE_SYMBOLS), files: filesOf(found), truncated: shown.truncated } };
    },
  });

  const hover = defineTool({
    name: 'hover',
    description: 'The type and documentation of a TypeScript/JavaScript symbol, as an editor shows on hover. Name it by `path` + `symbol` (`Invoice.total`), or by `path` + `line` (+ `column`).',
    args: symbolTargetArgs,
    risk: 'read',
    provider: LANGUAGE_SERVICE_PROVIDER,
    summarize: (args) => `hover ${args.path} ${args.symbol ?? `line ${args.line}`}`,
    async execute(args, context) {
      const { target, label } = await resolveSymbolTarget(args, context);
      const info = await (await service(context.workspace.root)).hover(target);
      if (info === undefined || info.signature === '') return { content: `no type information for ${label}`, meta: { path: args.path } };
      const documentation = info.documentation.trim() === '' ? '' : `\n\n${info.documentation.trim()}`;
      return { content: `${info.signature}${documentation}\n\nat ${formatLocation(info)}`, meta: { path: args.path, file: info.file, line: info.line } };
    },
  });

  return [findDefinition, findReferences, workspaceSymbols, hover, createDiagnosticsTool(service), createCallHierarchyTool(service)] as Tool[];
}

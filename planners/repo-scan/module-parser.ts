import { isAbsolute, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { collectModuleFacts } from './collect-module-facts.js';
import type { ModuleFacts } from './module-facts.js';
import { createModuleResolver } from './module-resolver.js';

/** Where each reference of a file leads: a workspace file, or nowhere the map knows. */
export interface ModuleResolutions {
  /** Parallel to `facts.references`: the workspace file, or null (a package, or unresolved). */
  readonly targets: readonly (string | null)[];
  /** Indexes of relative or aliased references that resolved to nothing. */
  readonly unresolved: readonly number[];
}

/**
 * The TypeScript side of a scan, loaded only when some file must be parsed or resolved: a
 * cached scan of an unchanged repository never pays for the compiler.
 */
export interface ModuleParser {
  readonly warnings: readonly string[];
  parse(path: string, text: string): ModuleFacts;
  resolve(path: string, facts: ModuleFacts, paths: ReadonlySet<string>): ModuleResolutions;
}

export function createModuleParser(workspace: string, tsconfig: string | undefined): ModuleParser {
  const resolver = createModuleResolver(workspace, tsconfig);
  return {
    warnings: resolver.warnings,
    parse(path, text) {
      const fileName = join(workspace, path);
      const sourceFile = ts.createSourceFile(
        fileName,
        text,
        { languageVersion: ts.ScriptTarget.Latest, impliedNodeFormat: resolver.impliedFormat(fileName), jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
        true,
      );
      return collectModuleFacts(sourceFile, resolver.optionsFor(fileName));
    },
    resolve(path, facts, paths) {
      const fileName = join(workspace, path);
      const unresolved: number[] = [];
      const targets = facts.references.map((reference, index) => {
        const resolution = resolver.resolve(reference.specifier, fileName, reference.mode);
        if (resolution.status === 'unresolved') {
          if (isLocalSpecifier(reference.specifier, resolver.optionsFor(fileName))) unresolved.push(index);
          return null;
        }
        const target = workspacePath(workspace, resolution.fileName);
        if (resolution.external || target === undefined || !paths.has(target)) return null;
        return target;
      });
      return { targets, unresolved };
    },
  };
}

function workspacePath(workspace: string, fileName: string): string | undefined {
  const path = relative(workspace, fileName);
  if (path === '' || path.startsWith('..') || isAbsolute(path)) return undefined;
  return path.split(sep).join('/');
}

/** Relative, absolute or matching a `paths` alias: a specifier meant to name a workspace file. */
function isLocalSpecifier(specifier: string, options: ts.CompilerOptions): boolean {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return true;
  return Object.keys(options.paths ?? {}).some((pattern) => {
    const star = pattern.indexOf('*');
    if (star === -1) return specifier === pattern;
    return specifier.startsWith(pattern.slice(0, star)) && specifier.endsWith(pattern.slice(star + 1));
  });
}

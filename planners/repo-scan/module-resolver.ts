import { existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/**
 * TypeScript's own module resolution, configured from the workspace's tsconfig: `paths`,
 * `baseUrl`, `moduleResolution`, index files, `.js` specifiers of `.ts` sources, package
 * `exports`. One resolution cache serves the whole scan.
 */
export interface ModuleResolver {
  readonly options: ts.CompilerOptions;
  /** The config file used, absolute; undefined when the defaults apply. */
  readonly configFile: string | undefined;
  /** Problems reading the config file; the defaults are used then. */
  readonly warnings: readonly string[];
  /** ESM or CommonJS, as Node would load the file (decides how `import` resolves under NodeNext). */
  impliedFormat(fileName: string): ts.ResolutionMode;
  resolve(specifier: string, containingFile: string, mode: ts.ResolutionMode): ModuleResolution;
}

export type ModuleResolution =
  | { readonly status: 'resolved'; readonly fileName: string; readonly external: boolean }
  | { readonly status: 'unresolved' };

/** Used when the workspace has no tsconfig.json or jsconfig.json: what a bundler would do. */
const DEFAULT_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowJs: true,
  resolveJsonModule: true,
};

const CONFIG_FILE_NAMES = ['tsconfig.json', 'jsconfig.json'] as const;

/** `tsconfig` is workspace-relative; without it `tsconfig.json`, then `jsconfig.json`, at the root. */
export function createModuleResolver(root: string, tsconfig?: string): ModuleResolver {
  const { options, configFile, warnings } = loadCompilerOptions(root, tsconfig);
  const host: ts.ModuleResolutionHost = ts.sys;
  const canonical = ts.sys.useCaseSensitiveFileNames ? (name: string) => name : (name: string) => name.toLowerCase();
  const cache = ts.createModuleResolutionCache(root, canonical, options);
  return {
    options,
    configFile,
    warnings,
    impliedFormat: (fileName) => ts.getImpliedNodeFormatForFile(fileName, cache.getPackageJsonInfoCache(), host, options),
    resolve(specifier, containingFile, mode) {
      const { resolvedModule } = ts.resolveModuleName(specifier, containingFile, options, host, cache, undefined, mode);
      if (resolvedModule === undefined) return { status: 'unresolved' };
      return { status: 'resolved', fileName: resolvedModule.resolvedFileName, external: resolvedModule.isExternalLibraryImport === true };
    },
  };
}

function loadCompilerOptions(root: string, tsconfig: string | undefined): { options: ts.CompilerOptions; configFile: string | undefined; warnings: string[] } {
  const configFile = tsconfig !== undefined ? join(root, tsconfig) : CONFIG_FILE_NAMES.map((name) => join(root, name)).find((path) => existsSync(path));
  if (configFile === undefined) return { options: DEFAULT_OPTIONS, configFile: undefined, warnings: [] };

  const shown = relative(root, configFile);
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error !== undefined) {
    return { options: DEFAULT_OPTIONS, configFile: undefined, warnings: [`${shown}: ${diagnosticText(read.error)}; scanned with default module resolution`] };
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configFile), undefined, configFile);
  const warnings = parsed.errors
    // "No inputs were found" only matters to a compilation; the scan lists files itself.
    .filter((error) => error.code !== 18003)
    .map((error) => `${shown}: ${diagnosticText(error)}`);
  // JavaScript files take part in the import graph whatever the project compiles.
  return { options: { ...parsed.options, allowJs: true }, configFile, warnings };
}

function diagnosticText(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
}

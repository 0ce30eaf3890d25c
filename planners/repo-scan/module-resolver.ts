import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * TypeScript's own module resolution, configured from the workspace's tsconfig: `paths`,
 * `baseUrl`, `moduleResolution`, index files, `.js` specifiers of `.ts` sources, package
 * `exports`. A root config that lists `references` (a solution file, or a project with
 * references) brings in each referenced project, transitively: a file resolves with the options
 * of the project that owns it (its `files`/`include`, else the nearest project folder above it),
 * so each project's own `paths` and `baseUrl` apply to its files. One resolution cache per project.
 */
export interface ModuleResolver {
  /** Problems reading the config files; the defaults are used for a config that cannot be read. */
  readonly warnings: readonly string[];
  /** The compiler options that apply to a file: its project's. */
  optionsFor(fileName: string): ts.CompilerOptions;
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

interface ResolverProject {
  /** The folder of its config file, with a trailing separator. */
  readonly folder: string;
  readonly options: ts.CompilerOptions;
  readonly fileNames: ReadonlySet<string>;
  readonly cache: ts.ModuleResolutionCache;
}

/** `tsconfig` is workspace-relative; without it `tsconfig.json`, then `jsconfig.json`, at the root. */
export function createModuleResolver(root: string, tsconfig?: string): ModuleResolver {
  const host: ts.ModuleResolutionHost = ts.sys;
  const canonical = ts.sys.useCaseSensitiveFileNames ? (name: string) => name : (name: string) => name.toLowerCase();
  const warnings: string[] = [];
  const projects: ResolverProject[] = [];
  const project = (folder: string, options: ts.CompilerOptions, fileNames: readonly string[]): ResolverProject => ({
    folder: folder.endsWith(sep) ? folder : `${folder}${sep}`,
    options,
    fileNames: new Set(fileNames),
    cache: ts.createModuleResolutionCache(folder, canonical, options),
  });

  const rootConfig = tsconfig !== undefined ? join(root, tsconfig) : CONFIG_FILE_NAMES.map((name) => join(root, name)).find((path) => existsSync(path));
  const seen = new Set<string>();
  const visit = (configFile: string, isRoot: boolean): void => {
    if (seen.has(configFile)) return;
    seen.add(configFile);
    const loaded = loadConfig(root, configFile, warnings, isRoot);
    if (loaded === undefined) {
      if (isRoot) projects.push(project(root, DEFAULT_OPTIONS, []));
      return;
    }
    projects.push(project(dirname(configFile), loaded.options, loaded.fileNames));
    for (const reference of loaded.references) visit(ts.resolveProjectReferencePath(reference), false);
  };
  if (rootConfig === undefined) projects.push(project(root, DEFAULT_OPTIONS, []));
  else visit(rootConfig, true);
  const [rootProject] = projects as [ResolverProject, ...ResolverProject[]];

  const owners = new Map<string, ResolverProject>();
  /** The project listing the file; else the one whose folder is nearest above it; else the root's. */
  const projectOf = (fileName: string): ResolverProject => {
    const known = owners.get(fileName);
    if (known !== undefined) return known;
    let owner = projects.find((candidate) => candidate.fileNames.has(fileName));
    if (owner === undefined) {
      for (const candidate of projects) {
        if (fileName.startsWith(candidate.folder) && (owner === undefined || candidate.folder.length > owner.folder.length)) owner = candidate;
      }
    }
    const chosen = owner ?? rootProject;
    owners.set(fileName, chosen);
    return chosen;
  };

  return {
    warnings,
    optionsFor: (fileName) => projectOf(fileName).options,
    impliedFormat(fileName) {
      const { cache, options } = projectOf(fileName);
      return ts.getImpliedNodeFormatForFile(fileName, cache.getPackageJsonInfoCache(), host, options);
    },
    resolve(specifier, containingFile, mode) {
      const { cache, options } = projectOf(containingFile);
      const { resolvedModule } = ts.resolveModuleName(specifier, containingFile, options, host, cache, undefined, mode);
      if (resolvedModule === undefined) return { status: 'unresolved' };
      return { status: 'resolved', fileName: resolvedModule.resolvedFileName, external: resolvedModule.isExternalLibraryImport === true };
    },
  };
}

function loadConfig(
  root: string,
  configFile: string,
  warnings: string[],
  isRoot: boolean,
): { options: ts.CompilerOptions; fileNames: readonly string[]; references: readonly ts.ProjectReference[] } | undefined {
  const shown = relative(root, configFile);
  if (!isRoot && !existsSync(configFile)) {
    warnings.push(`${shown}: referenced project does not exist`);
    return undefined;
  }
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error !== undefined) {
    warnings.push(`${shown}: ${diagnosticText(read.error)}; ${isRoot ? 'scanned with default module resolution' : 'its files resolve with the root config'}`);
    return undefined;
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configFile), undefined, configFile);
  // "No inputs were found" only matters to a compilation; the scan lists files itself.
  for (const error of parsed.errors) if (error.code !== 18003) warnings.push(`${shown}: ${diagnosticText(error)}`);
  // JavaScript files take part in the import graph whatever the project compiles.
  return { options: { ...parsed.options, allowJs: true }, fileNames: parsed.fileNames, references: parsed.projectReferences ?? [] };
}

function diagnosticText(diagnostic: ts.Diagnostic): string {
  // TypeScript ends its sentences with a full stop; the warning goes on after it.
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ').replace(/\.$/, '');
}

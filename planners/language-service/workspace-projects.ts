import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One TypeScript project of the workspace: a tsconfig's options and files. */
export interface WorkspaceProject {
  /** Absolute; undefined for the defaults used when the workspace has no config file. */
  readonly configFile: string | undefined;
  readonly options: ts.CompilerOptions;
  /** Absolute file names the config includes. */
  readonly fileNames: readonly string[];
  readonly projectReferences: readonly ts.ProjectReference[] | undefined;
}

export interface WorkspaceProjects {
  /** The root project first, then every project it references (depth first, each once). */
  readonly projects: readonly WorkspaceProject[];
  /** Problems reading config files, one line each. */
  readonly warnings: readonly string[];
}

/** Used when the workspace has neither tsconfig.json nor jsconfig.json: a bundler-style JavaScript-friendly project. */
export const DEFAULT_PROJECT_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowJs: true,
  checkJs: false,
  resolveJsonModule: true,
  skipLibCheck: true,
  noEmit: true,
};

const CONFIG_FILE_NAMES = ['tsconfig.json', 'jsconfig.json'] as const;

/**
 * The workspace's projects: `tsconfig` (workspace-relative or absolute) when given, else
 * `tsconfig.json`, then `jsconfig.json`, else defaults. A root config that only lists
 * `references` (a solution file) contributes its referenced projects; `checkJs` implies
 * `allowJs`, so JavaScript projects take part. Nothing is emitted.
 */
export function loadWorkspaceProjects(workspace: string, tsconfig?: string): WorkspaceProjects {
  const warnings: string[] = [];
  const rootConfig = tsconfig !== undefined ? resolve(workspace, tsconfig) : CONFIG_FILE_NAMES.map((name) => join(workspace, name)).find((path) => existsSync(path));
  if (rootConfig === undefined) {
    const fileNames = ts.sys.readDirectory(workspace, ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'], ['**/node_modules', '**/.git', '**/.dagent', '**/dist'], ['**/*']);
    return { projects: [{ configFile: undefined, options: DEFAULT_PROJECT_OPTIONS, fileNames, projectReferences: undefined }], warnings };
  }
  if (!existsSync(rootConfig)) {
    warnings.push(`${relative(workspace, rootConfig)} does not exist`);
    return { projects: [{ configFile: undefined, options: DEFAULT_PROJECT_OPTIONS, fileNames: [], projectReferences: undefined }], warnings };
  }
  const projects: WorkspaceProject[] = [];
  const seen = new Set<string>();
  const visit = (configFile: string): void => {
    if (seen.has(configFile)) return;
    seen.add(configFile);
    const project = parseProject(workspace, configFile, warnings);
    if (project === undefined) return;
    projects.push(project);
    for (const reference of project.projectReferences ?? []) visit(ts.resolveProjectReferencePath(reference));
  };
  visit(rootConfig);
  if (projects.length === 0) projects.push({ configFile: undefined, options: DEFAULT_PROJECT_OPTIONS, fileNames: [], projectReferences: undefined });
  return { projects, warnings };
}

function parseProject(workspace: string, configFile: string, warnings: string[]): WorkspaceProject | undefined {
  const shown = relative(workspace, configFile);
  if (!existsSync(configFile)) {
    warnings.push(`${shown}: referenced project does not exist`);
    return undefined;
  }
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error !== undefined) {
    warnings.push(`${shown}: ${diagnosticText(read.error)}`);
    return undefined;
  }
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configFile), undefined, configFile);
  // "No inputs were found" is normal for a solution file that only lists references.
  for (const error of parsed.errors) if (error.code !== 18003) warnings.push(`${shown}: ${diagnosticText(error)}`);
  const isJsConfig = configFile.endsWith('jsconfig.json');
  const allowJs = parsed.options.allowJs === true || parsed.options.checkJs === true || isJsConfig;
  const options: ts.CompilerOptions = { ...parsed.options, allowJs, noEmit: true, skipLibCheck: true };
  return { configFile, options, fileNames: parsed.fileNames, projectReferences: parsed.projectReferences };
}

function diagnosticText(diagnostic: ts.Diagnostic): string {
  return ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
}

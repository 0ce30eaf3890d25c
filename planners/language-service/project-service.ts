import { statSync } from 'node:fs';
import ts from 'typescript';
import type { WorkspaceProject } from './workspace-projects.js';

/**
 * A TypeScript LanguageService over one project, with a root file set that can grow: the
 * service loads only the roots (and what they import), so a query about one symbol need not
 * type-check the whole repository. File versions come from mtime and size, so an edited file is
 * re-read on the next query and nothing else is.
 */
export interface ProjectService {
  readonly project: WorkspaceProject;
  readonly service: ts.LanguageService;
  /** Whether the file is one of the project's own files. */
  owns(fileName: string): boolean;
  /** Adds root files; returns whether the set grew. */
  addRoots(fileNames: Iterable<string>): boolean;
  /** Loads every file of the project. */
  loadAll(): void;
  /** Re-stats the files the program holds, so an edit since the last query is read again. */
  refresh(): void;
  /** The program as of the last `refresh`. */
  program(): ts.Program;
}

export function createProjectService(workspace: string, project: WorkspaceProject, registry: ts.DocumentRegistry): ProjectService {
  const owned = new Set(project.fileNames);
  const declarationFiles = project.fileNames.filter((fileName) => /\.d\.[cm]?ts$/.test(fileName));
  const roots = new Set<string>(declarationFiles);
  let rootList = [...roots];
  let projectVersion = 0;
  const versions = new Map<string, string>();

  const host = serviceHost(workspace, project, { rootList: () => rootList, projectVersion: () => projectVersion, versions });
  const service = ts.createLanguageService(host, registry);

  const refreshVersions = (): void => {
    let changed = false;
    for (const [fileName, version] of versions) {
      const current = versionOf(fileName);
      if (current !== version) {
        versions.set(fileName, current);
        changed = true;
      }
    }
    if (changed) projectVersion += 1;
  };

  return {
    project,
    service,
    owns: (fileName) => owned.has(fileName),
    addRoots(fileNames) {
      let grew = false;
      for (const fileName of fileNames) {
        if (roots.has(fileName)) continue;
        roots.add(fileName);
        grew = true;
      }
      if (grew) {
        rootList = [...roots];
        projectVersion += 1;
      }
      return grew;
    },
    loadAll() {
      this.addRoots(project.fileNames);
    },
    refresh: refreshVersions,
    program() {
      const program = service.getProgram();
      if (program === undefined) throw new Error('the language service has no program');
      return program;
    },
  };
}

/** What the host reads of the service's growing state. */
interface ServiceFiles {
  readonly rootList: () => string[];
  readonly projectVersion: () => number;
  /** Each file's version as last seen; a file is stat-ed on its first query. */
  readonly versions: Map<string, string>;
}

/** The language service's window on the disk: the project's options, the roots so far, files by mtime and size. */
function serviceHost(workspace: string, project: WorkspaceProject, files: ServiceFiles): ts.LanguageServiceHost {
  const host: ts.LanguageServiceHost = {
    getProjectVersion: () => String(files.projectVersion()),
    getScriptFileNames: () => files.rootList(),
    getScriptVersion: (fileName) => {
      const known = files.versions.get(fileName);
      if (known !== undefined) return known;
      const version = versionOf(fileName);
      files.versions.set(fileName, version);
      return version;
    },
    getScriptSnapshot: (fileName) => {
      const text = ts.sys.readFile(fileName);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => workspace,
    getCompilationSettings: () => project.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    getProjectReferences: () => project.projectReferences,
    fileExists: (path) => ts.sys.fileExists(path),
    readFile: (path, encoding) => ts.sys.readFile(path, encoding),
    readDirectory: (...args) => ts.sys.readDirectory(...args),
    directoryExists: (path) => ts.sys.directoryExists(path),
    getDirectories: (path) => ts.sys.getDirectories(path),
    realpath: (path) => ts.sys.realpath?.(path) ?? path,
  };
  // Not in the public host type, but honoured: a referenced project's sources stand in for its
  // built .d.ts files, as in the editor, so references cross project boundaries.
  Object.assign(host, { useSourceOfProjectReferenceRedirect: () => true });
  return host;
}

function versionOf(fileName: string): string {
  try {
    const stats = statSync(fileName);
    return `${stats.mtimeMs}:${stats.size}`;
  } catch {
    return 'missing';
  }
}

import { glob } from 'tinyglobby';
import { DAGENT_TEMP_FILE_GLOB } from '../engine/index.js';
import { ALWAYS_SKIPPED_DIRECTORIES, languageOf, type RepoMap } from './repo-scan/index.js';

/**
 * A map with the workspace's files and no import graph, from a listing that skips what it cannot
 * read instead of failing: what plan lint falls back on when the repository scan fails. It
 * ignores `.gitignore`, so ignored files count as present: lint may miss a missing file, but never
 * reports an existing one as missing. Rejects only when the workspace cannot be listed at all.
 */
export async function listedFilesMap(workspace: string): Promise<RepoMap> {
  const skipped = [...ALWAYS_SKIPPED_DIRECTORIES].map((name) => `**/${name}/**`);
  const paths = (await glob('**', { cwd: workspace, dot: true, onlyFiles: true, followSymbolicLinks: false, ignore: [...skipped, DAGENT_TEMP_FILE_GLOB] })).sort();
  return {
    root: workspace,
    files: paths.map((path) => ({ path, size: 0, language: languageOf(path), exports: [] })),
    imports: [],
    unresolved: [],
    importers: {},
    aliases: {},
    warnings: [],
  };
}

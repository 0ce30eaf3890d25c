import { join } from 'node:path';
import type { RepoMap } from '../repo-scan/index.js';

/** The last few answers only: consecutive queries are mostly about the same file. */
const REMEMBERED_REACH = 16;

interface Importers {
  readonly map: RepoMap;
  /** Reverse import edges, absolute file names: each file to the files that import it. */
  readonly reverse: Map<string, string[]>;
  readonly reached: Map<string, Set<string>>;
}

/**
 * The files and everything that imports them, transitively, over the repository's import graph.
 * The graph is asked of `loadMap` on every query and rebuilt when it hands back a new map, so a
 * rescan during a run (files created by nodes) reaches the next query; answers are remembered
 * for the graph they were computed on.
 */
export function createImportReach(workspace: string, loadMap: () => Promise<RepoMap>): (fileNames: Iterable<string>) => Promise<Set<string>> {
  let importers: Importers | undefined;
  const importersOf = async (): Promise<Importers> => {
    const map = await loadMap();
    if (importers?.map === map) return importers;
    importers = { map, reverse: reverseImports(workspace, map), reached: new Map() };
    return importers;
  };
  return async (fileNames) => {
    const { reverse, reached: known } = await importersOf();
    const start = [...fileNames];
    const key = [...start].sort().join('\0');
    const remembered = known.get(key);
    if (remembered !== undefined) return remembered;
    const reached = new Set<string>();
    const queue = [...start];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      if (reached.has(next)) continue;
      reached.add(next);
      for (const importer of reverse.get(next) ?? []) if (!reached.has(importer)) queue.push(importer);
    }
    if (known.size >= REMEMBERED_REACH) known.delete(known.keys().next().value as string);
    known.set(key, reached);
    return reached;
  };
}

function reverseImports(workspace: string, map: RepoMap): Map<string, string[]> {
  const reverse = new Map<string, string[]>();
  for (const edge of map.imports) {
    const to = join(workspace, edge.to);
    const list = reverse.get(to);
    if (list === undefined) reverse.set(to, [join(workspace, edge.from)]);
    else list.push(join(workspace, edge.from));
  }
  return reverse;
}

import { STOP_WORDS } from '../engine/index.js';
import { symbolKey, uniqueEdges, type RepoMap } from './repo-scan/index.js';

/** Words of a task that name no file: English glue and the vocabulary of every coding task. */
const TASK_STOP_WORDS: ReadonlySet<string> = new Set(['everywhere', 'keep', 'file', 'files', 'code', 'change', 'changes', 'sure', 'still', 'green', 'pass']);

/** Root files that say how the project builds and tests: worth showing in any map. */
const MANIFEST_FILES: ReadonlySet<string> = new Set([
  'package.json', 'tsconfig.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'Cargo.toml', 'go.mod', 'Makefile', 'pom.xml', 'build.gradle', 'Gemfile', 'composer.json',
]);

const SCORE = {
  namedPath: 1000,
  namedExport: 50,
  symbolImporter: 30,
  manifest: 20,
  pathWord: 10,
  exportWord: 3,
  /** Share of a file's own score passed to the files that import it (they may need to change). */
  toImporters: 0.3,
  /** Share passed to the files it imports (they define what it uses). */
  toImports: 0.2,
} as const;

export interface TaskVocabulary {
  /** Lower-cased words, identifiers split at case changes and underscores: `getArea` → `get`, `area`. */
  readonly words: ReadonlySet<string>;
  /** Whole identifiers, lower-cased: `getarea`, `shape`. An export of that name is named by the task. */
  readonly identifiers: ReadonlySet<string>;
}

/** The words of a task (or a replan's trigger) that can pick out files. Pure. */
export function taskVocabulary(text: string): TaskVocabulary {
  const words = new Set<string>();
  const identifiers = new Set<string>();
  for (const match of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const identifier = match[0].replace(/^[_$]+|[_$]+$/g, '');
    if (identifier.length < 3) continue;
    const lower = identifier.toLowerCase();
    if (!isStopWord(lower)) identifiers.add(lower);
    for (const word of splitIdentifier(identifier)) if (word.length >= 3 && !isStopWord(word)) words.add(word);
  }
  return { words, identifiers };
}

function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word) || TASK_STOP_WORDS.has(word);
}

/** `getArea` → `get`, `area`; `HTTPServer` → `http`, `server`; `repo_map.ts` → `repo`, `map`, `ts`. */
export function splitIdentifier(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/**
 * How relevant each file of the map is to a task, for trimming the map to a budget: files the
 * task names with `@path` first, then files that export a symbol the task names and the files
 * that import that symbol, then files whose path or exports share words with the task; each
 * file passes a share of its score to its importers and imports. Files scoring 0 are left out of
 * the result. Pure.
 */
export function rankFiles(map: RepoMap, focus: string, namedPaths: readonly string[] = []): Map<string, number> {
  const vocabulary = taskVocabulary(focus);
  const direct = new Map<string, number>();
  const add = (path: string, score: number): void => {
    if (score > 0) direct.set(path, (direct.get(path) ?? 0) + score);
  };
  for (const file of map.files) {
    if (namedPaths.some((named) => file.path === named || file.path.startsWith(`${named.replace(/\/$/, '')}/`))) add(file.path, SCORE.namedPath);
    if (MANIFEST_FILES.has(file.path)) add(file.path, SCORE.manifest);
    add(file.path, SCORE.pathWord * countShared(splitIdentifier(file.path), vocabulary.words));
    for (const name of file.exports) {
      if (vocabulary.identifiers.has(name.toLowerCase())) {
        add(file.path, SCORE.namedExport);
        const key = symbolKey(file.path, name);
        const importers = new Set((map.importers[map.aliases[key] ?? key] ?? []).map((importer) => importer.file));
        for (const importer of importers) add(importer, SCORE.symbolImporter);
      } else {
        add(file.path, SCORE.exportWord * countShared(splitIdentifier(name), vocabulary.words));
      }
    }
  }
  const scores = new Map(direct);
  for (const { from, to } of uniqueEdges(map)) {
    if (from === to) continue;
    const toScore = direct.get(to) ?? 0;
    const fromScore = direct.get(from) ?? 0;
    if (toScore > 0) scores.set(from, (scores.get(from) ?? 0) + toScore * SCORE.toImporters);
    if (fromScore > 0) scores.set(to, (scores.get(to) ?? 0) + fromScore * SCORE.toImports);
  }
  return scores;
}

function countShared(words: readonly string[], vocabulary: ReadonlySet<string>): number {
  return new Set(words.filter((word) => vocabulary.has(word))).size;
}

/** The map's files, most relevant first; equal scores: shallower paths first, then by path. */
export function filesByRelevance(map: RepoMap, scores: ReadonlyMap<string, number>): string[] {
  return map.files
    .map((file) => file.path)
    .sort((left, right) => (scores.get(right) ?? 0) - (scores.get(left) ?? 0) || depth(left) - depth(right) || (left < right ? -1 : left > right ? 1 : 0));
}

function depth(path: string): number {
  return path.split('/').length;
}

import { estimateTextTokens } from '../engine/index.js';
import { filesByRelevance, rankFiles, taskVocabulary } from './repo-map-prompt-relevance.js';
import { formatBytes, symbolKey, uniqueEdges, type RepoFile, type RepoMap } from './repo-scan/index.js';

/** What the planner's instruction may spend on the repository map, by default. */
export const DEFAULT_MAP_TOKEN_BUDGET = 6_000;

/** A file's line lists at most this many exports, and its arrow line at most this many imports. */
export const MAX_NAMES_PER_FILE = 24;

/** Symbols the task names whose importers are listed, and importers listed per symbol. */
const MAX_NAMED_SYMBOLS = 8;
const MAX_IMPORTERS_PER_SYMBOL = 20;

/** Folders named in the "not shown" line. */
const MAX_SUMMARY_FOLDERS = 15;

export interface RepoMapPromptOptions {
  /** Estimated tokens (engine's `estimateTextTokens`) the map may take. */
  readonly budgetTokens: number;
  /** Text whose words rank the files when the map must be trimmed: the task, a replan's trigger. */
  readonly focus: string;
  /** Files or folders the task names (`@path`): ranked first. */
  readonly paths?: readonly string[];
}

export interface RepoMapPrompt {
  readonly text: string;
  /** `estimateTextTokens(text)`. */
  readonly tokens: number;
  readonly totalFiles: number;
  readonly shownFiles: number;
  /** True when files were left out to fit the budget. */
  readonly trimmed: boolean;
}

/**
 * The repository map as the planner reads it: each file with its size and exports, the files it
 * imports, and for the symbols the task names, the files that import them. When all of it does
 * not fit `budgetTokens`, the files most related to the task are kept (see `rankFiles`) and the
 * rest are counted by folder. Pure.
 */
export function renderRepoMapPrompt(map: RepoMap, options: RepoMapPromptOptions): RepoMapPrompt {
  const budget = Math.max(0, Math.floor(options.budgetTokens));
  const targets = importTargets(map);
  const byPath = new Map(map.files.map((file) => [file.path, file]));
  const symbols = namedSymbolLines(map, options.focus);
  const scores = rankFiles(map, options.focus, options.paths ?? []);
  const ranked = filesByRelevance(map, scores);
  const edgeCount = uniqueEdges(map).length;

  const render = (shown: readonly string[], withSymbols: boolean): string =>
    renderMap({ map, shown, byPath, targets, symbols: withSymbols ? symbols : [], edgeCount });

  // Greedy by relevance on per-file estimates, then measured exactly and shrunk while it is over.
  const fixedTokens = estimateTextTokens(render([], true));
  let remaining = budget - fixedTokens;
  let shown: string[] = [];
  for (const path of ranked) {
    const cost = estimateTextTokens(fileBlock(byPath.get(path)!, targets)) + 1;
    if (cost > remaining) break;
    shown.push(path);
    remaining -= cost;
  }
  let text = render(shown, true);
  let tokens = estimateTextTokens(text);
  while (tokens > budget && shown.length > 0) {
    const over = tokens - budget;
    const average = Math.max(1, Math.floor(tokens / Math.max(1, shown.length)));
    shown = shown.slice(0, Math.max(0, shown.length - Math.max(1, Math.ceil(over / average))));
    text = render(shown, true);
    tokens = estimateTextTokens(text);
  }
  if (tokens > budget) {
    text = render([], false);
    tokens = estimateTextTokens(text);
  }
  if (tokens > budget) {
    text = `Repository map left out: ${map.files.length} files do not fit the map's budget of ${budget} tokens. Use the tools to look around.`;
    tokens = estimateTextTokens(text);
  }
  return { text, tokens, totalFiles: map.files.length, shownFiles: shown.length, trimmed: shown.length < map.files.length };
}

interface RenderInput {
  readonly map: RepoMap;
  /** Paths to show, in any order: they are listed by path. */
  readonly shown: readonly string[];
  readonly byPath: ReadonlyMap<string, RepoFile>;
  readonly targets: ReadonlyMap<string, readonly string[]>;
  readonly symbols: readonly string[];
  readonly edgeCount: number;
}

function renderMap(input: RenderInput): string {
  const { map, shown } = input;
  const total = map.files.length;
  const trimmed = shown.length < total;
  const lines = [
    trimmed
      ? `${counted(total, 'file')}, ${counted(input.edgeCount, 'import')} between them. Shown: the ${shown.length} files most related to the task; the others are counted by folder at the end.`
      : `${counted(total, 'file')}, ${counted(input.edgeCount, 'import')} between them.`,
    'Each file: path (size) and its exports; "→" lists the workspace files it imports.',
  ];
  if (input.symbols.length > 0) lines.push('', 'Symbols the task names, and the files that import them:', ...input.symbols);
  if (shown.length > 0) {
    lines.push('', 'Files:');
    for (const path of [...shown].sort()) lines.push(fileBlock(input.byPath.get(path)!, input.targets));
  }
  if (trimmed) {
    const visible = new Set(shown);
    lines.push('', notShownLine(map.files.filter((file) => !visible.has(file.path)).map((file) => file.path)));
  }
  return lines.join('\n');
}

/** `src/a.ts (1.2 KB) exports A, B` and, when it imports workspace files, `  → src/b.ts, src/c.ts`. */
function fileBlock(file: RepoFile, targets: ReadonlyMap<string, readonly string[]>): string {
  const exports = file.exports.length === 0 ? '' : ` exports ${capped(file.exports)}`;
  const line = `${file.path} (${formatBytes(file.size)})${exports}`;
  const imported = targets.get(file.path);
  return imported === undefined ? line : `${line}\n  → ${capped(imported)}`;
}

function counted(count: number, word: string): string {
  return `${count} ${count === 1 ? word : `${word}s`}`;
}

function capped(names: readonly string[]): string {
  if (names.length <= MAX_NAMES_PER_FILE) return names.join(', ');
  return `${names.slice(0, MAX_NAMES_PER_FILE).join(', ')} (+${names.length - MAX_NAMES_PER_FILE} more)`;
}

function importTargets(map: RepoMap): Map<string, string[]> {
  const targets = new Map<string, string[]>();
  for (const { from, to } of uniqueEdges(map)) {
    if (from === to) continue;
    targets.set(from, [...(targets.get(from) ?? []), to]);
  }
  return targets;
}

/** `- src/shape.ts#Shape ← src/circle.ts, src/square.ts` for each export whose name the task uses. */
function namedSymbolLines(map: RepoMap, focus: string): string[] {
  const { identifiers } = taskVocabulary(focus);
  const lines: string[] = [];
  for (const file of map.files) {
    for (const name of file.exports) {
      if (!identifiers.has(name.toLowerCase())) continue;
      const key = symbolKey(file.path, name);
      const declared = map.aliases[key];
      if (declared !== undefined) continue; // a re-export: listed under the file that declares it
      const importers = [...new Set((map.importers[key] ?? []).map((importer) => importer.file))];
      const listed = importers.slice(0, MAX_IMPORTERS_PER_SYMBOL).join(', ');
      const more = importers.length > MAX_IMPORTERS_PER_SYMBOL ? ` (+${importers.length - MAX_IMPORTERS_PER_SYMBOL} more)` : '';
      lines.push(importers.length === 0 ? `- ${key}: no importers` : `- ${key} ← ${listed}${more}`);
      if (lines.length >= MAX_NAMED_SYMBOLS) return lines;
    }
  }
  return lines;
}

/** `Not shown: 812 files — src/generated/ 800, test/ 12`, by folder (two levels), largest first. */
function notShownLine(paths: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const path of paths) {
    const parts = path.split('/');
    const folder = parts.length === 1 ? '(root)' : `${parts.slice(0, Math.min(2, parts.length - 1)).join('/')}/`;
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  const folders = [...counts].sort(([left, a], [right, b]) => b - a || (left < right ? -1 : 1));
  const listed = folders.slice(0, MAX_SUMMARY_FOLDERS).map(([folder, count]) => `${folder} ${count}`);
  if (folders.length > MAX_SUMMARY_FOLDERS) listed.push(`${folders.length - MAX_SUMMARY_FOLDERS} more folders`);
  return `Not shown: ${paths.length} files — ${listed.join(', ')}`;
}

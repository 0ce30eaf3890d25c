import type { RepoMap, SymbolImporter } from './repo-map.js';
import { uniqueEdges } from './scan-json.js';

/**
 * `dagent scan` as text. Without `importers`: a summary line, then each file with its language,
 * size, exports and the files it imports, then anything unresolved and the scan's warnings.
 * With `importers` (the answer to `--importers FILE#SYMBOL`): the summary line and the importers.
 */
export function renderScanText(map: RepoMap, importers?: readonly SymbolImporter[]): string {
  const lines = [summaryLine(map)];
  if (importers !== undefined) {
    lines.push('', ...importerLines(importers));
    return `${lines.join('\n')}\n`;
  }

  const targets = new Map<string, string[]>();
  for (const { from, to } of uniqueEdges(map)) targets.set(from, [...(targets.get(from) ?? []), to]);
  const width = Math.min(60, Math.max(0, ...map.files.map((file) => file.path.length)));
  lines.push('');
  for (const file of map.files) {
    const exports = file.exports.length > 0 ? `  exports ${file.exports.join(', ')}` : '';
    lines.push(`${file.path.padEnd(width)}  ${file.language.padEnd(10)} ${formatBytes(file.size).padStart(8)}${exports}`);
    const imported = targets.get(file.path);
    if (imported !== undefined) lines.push(`  → ${imported.join(', ')}`);
  }
  if (map.unresolved.length > 0) {
    lines.push('', 'unresolved imports:');
    for (const { from, specifier, line } of map.unresolved) lines.push(`  ${from}:${line}  ${specifier}`);
  }
  if (map.warnings.length > 0) lines.push('', 'warnings:', ...map.warnings.map((warning) => `  ${warning}`));
  return `${lines.join('\n')}\n`;
}

function summaryLine(map: RepoMap): string {
  const byLanguage = new Map<string, number>();
  for (const file of map.files) byLanguage.set(file.language, (byLanguage.get(file.language) ?? 0) + 1);
  const languages = [...byLanguage]
    .sort(([leftName, left], [rightName, right]) => right - left || (leftName < rightName ? -1 : 1))
    .map(([language, count]) => `${language} ${count}`);
  const edges = uniqueEdges(map).length;
  return [`${map.files.length} ${plural(map.files.length, 'file')}`, ...languages, `${edges} ${plural(edges, 'import')}`].join(' · ');
}

function importerLines(importers: readonly SymbolImporter[]): string[] {
  const [first] = importers;
  if (first === undefined) return ['no importers'];
  const files = new Set(importers.map((importer) => importer.file)).size;
  const declaredName = first.symbol.slice(first.symbol.lastIndexOf('#') + 1);
  const lines = [`${first.symbol}: ${importers.length} ${plural(importers.length, 'importer')} in ${files} ${plural(files, 'file')}`];
  for (const importer of importers) {
    const notes = [
      ...(importer.name !== declaredName ? [`as ${importer.name}`] : []),
      ...(importer.via.length > 0 ? [`via ${importer.via.join(' → ')}`] : []),
    ];
    lines.push(`  ${importer.file}:${importer.line}  ${importer.text}${notes.length > 0 ? `  (${notes.join(', ')})` : ''}`);
  }
  return lines;
}

/** `512 B`, `1.5 KB`, `2.0 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

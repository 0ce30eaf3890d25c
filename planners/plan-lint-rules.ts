import type { RepoMap, SymbolImporter } from './repo-scan/index.js';
import { isGlobPattern, matchFiles, normalizePlanPath, patternCovers } from './plan-lint-files.js';
import type { PlanReachability } from './plan-lint-graph.js';
import type { LintablePlan, LintCode, LintPlanNode } from './plan-lint.js';

/** What every rule reads: the plan, the map, and which existing files each node writes. */
export interface LintContext {
  readonly plan: LintablePlan;
  readonly map: RepoMap;
  /** The scanned files' paths. */
  readonly files: readonly string[];
  /** Existing files to the nodes whose `writes` cover them, in plan order. */
  readonly writtenBy: ReadonlyMap<string, readonly LintPlanNode[]>;
  readonly reachability: PlanReachability;
}

export interface LintFinding {
  readonly code: LintCode;
  readonly message: string;
  readonly nodeId?: string;
  readonly file?: string;
}

/** Nodes that change files: every `edit`, and an `agent` that declares writes. */
export function isEditingNode(node: LintPlanNode): boolean {
  return node.kind === 'edit' || (node.kind === 'agent' && node.writes.length > 0);
}

/**
 * (a) A file that uses a symbol of a written file (directly or through a barrel that is
 * written) but that no node writes. When the writing nodes' instructions name some of the
 * file's symbols, only their importers count, and a member they name (`Invoice.total()`) is
 * reported with the symbol.
 */
export function unwrittenImporters(context: LintContext): LintFinding[] {
  const reaching = importersByReachedFile(context.map);
  const byImporter = new Map<string, { names: string[]; changed: string[]; writers: string[] }>();
  for (const [changed, writers] of context.writtenBy) {
    const text = writers.map((node) => `${node.title ?? ''}\n${node.instructions ?? ''}`).join('\n');
    const entries = (reaching.get(changed) ?? []).filter((entry) => entry.file !== changed && !context.writtenBy.has(entry.file));
    const mentioned = entries.filter((entry) => mentions(text, declaredName(entry)) || mentions(text, entry.name));
    for (const entry of mentioned.length > 0 ? mentioned : entries) {
      const found = byImporter.get(entry.file) ?? { names: [], changed: [], writers: [] };
      found.names.push(displayName(text, declaredName(entry)));
      found.changed.push(changed);
      found.writers.push(...writers.map((node) => node.id));
      byImporter.set(entry.file, found);
    }
  }
  return [...byImporter].sort(([left], [right]) => (left < right ? -1 : 1)).map(([file, found]) => {
    const changed = unique(found.changed);
    const writers = unique(found.writers);
    return {
      code: 'unwritten-importer',
      message: `${file} imports ${unique(found.names).join(', ')} but no node writes it (${changed.join(', ')} ${changed.length === 1 ? 'is' : 'are'} written by ${writers.join(', ')})`,
      nodeId: writers[0],
      file,
    };
  });
}

/**
 * (b) Two editing nodes where one's file imports the other's (directly or through barrels) and
 * neither depends on the other: they may run in either order or together, and the build is
 * broken in between. One finding per pair of nodes.
 */
export function unorderedEdits(context: LintContext): LintFinding[] {
  const dependencies = fileDependencies(context.map);
  const findings: LintFinding[] = [];
  const reported = new Set<string>();
  for (const node of context.plan.nodes.filter(isEditingNode)) {
    for (const file of writtenFiles(node, context)) {
      for (const imported of dependencies.get(file) ?? []) {
        for (const other of context.writtenBy.get(imported) ?? []) {
          if (other.id === node.id || !isEditingNode(other)) continue;
          if (context.reachability.reaches(node.id, other.id) || context.reachability.reaches(other.id, node.id)) continue;
          const pair = [node.id, other.id].sort().join('\0');
          if (reported.has(pair)) continue;
          reported.add(pair);
          findings.push({
            code: 'unordered-edits',
            message: `${node.id} writes ${file}, which imports ${imported} written by ${other.id}, but neither node depends on the other: the code may not build between the two edits; make ${node.id} depend on ${other.id}`,
            nodeId: node.id,
            file,
          });
        }
      }
    }
  }
  return findings;
}

/**
 * (c) Reads of files that are not in the scan and that no node creates, and write globs that
 * match nothing. A literal write of a new path creates it; a node reading a file created by a
 * node it does not depend on is reported as `read-before-create`.
 */
export function missingFiles(context: LintContext): LintFinding[] {
  const creators = new Map<string, LintPlanNode[]>();
  for (const node of context.plan.nodes) {
    for (const pattern of node.writes) {
      const path = normalizePlanPath(pattern);
      if (isGlobPattern(path) || matchFiles(path, context.files).length > 0) continue;
      creators.set(path, [...(creators.get(path) ?? []), node]);
    }
  }
  const findings: LintFinding[] = [];
  for (const node of context.plan.nodes) {
    for (const pattern of node.reads) {
      if (matchFiles(pattern, context.files).length > 0) continue;
      const creating = [...creators].filter(([path]) => patternCovers(pattern, path)).flatMap(([, nodes]) => nodes);
      if (creating.length === 0) {
        findings.push({ code: 'missing-file', message: `${node.id} reads ${pattern}, which ${describeMissing(pattern)} and no node creates`, nodeId: node.id, file: normalizePlanPath(pattern) });
      } else if (!creating.some((creator) => creator.id === node.id || context.reachability.reaches(creator.id, node.id))) {
        const names = unique(creating.map((creator) => creator.id));
        findings.push({
          code: 'read-before-create',
          message: `${node.id} reads ${pattern}, which only ${names.join(', ')} creates, but ${node.id} does not depend on ${names.length === 1 ? 'it' : 'them'}`,
          nodeId: node.id,
          file: normalizePlanPath(pattern),
        });
      }
    }
    for (const pattern of node.writes) {
      if (!isGlobPattern(normalizePlanPath(pattern)) || matchFiles(pattern, context.files).length > 0) continue;
      if ([...creators.keys()].some((path) => patternCovers(pattern, path))) continue;
      findings.push({ code: 'missing-file', message: `${node.id} writes ${pattern}, which matches no file; name new files by their path`, nodeId: node.id, file: normalizePlanPath(pattern) });
    }
  }
  return findings;
}

/** (d) Editing nodes with no `command` node among the nodes that run after them. */
export function untestedEdits(context: LintContext): LintFinding[] {
  const commands = new Set(context.plan.nodes.filter((node) => node.kind === 'command').map((node) => node.id));
  return context.plan.nodes
    .filter((node) => isEditingNode(node) && ![...context.reachability.descendants(node.id)].some((id) => commands.has(id)))
    .map((node) => ({
      code: 'untested-edit' as const,
      message: `${node.id} changes files but no command node runs after it: add a node that runs the tests and depends on ${node.id}`,
      nodeId: node.id,
    }));
}

/** Each file to the importers whose symbol it declares or whose import passes through it as a barrel. */
function importersByReachedFile(map: RepoMap): Map<string, SymbolImporter[]> {
  const byFile = new Map<string, SymbolImporter[]>();
  for (const list of Object.values(map.importers)) {
    for (const entry of list) {
      for (const file of new Set([declaringFile(entry), ...entry.via])) {
        const list = byFile.get(file);
        if (list === undefined) byFile.set(file, [entry]);
        else list.push(entry);
      }
    }
  }
  return byFile;
}

/** Each file to the files it depends on: its import edges and the declaring files of the symbols it uses. */
function fileDependencies(map: RepoMap): Map<string, Set<string>> {
  const dependencies = new Map<string, Set<string>>();
  const add = (from: string, to: string): void => {
    if (from !== to) dependencies.set(from, (dependencies.get(from) ?? new Set()).add(to));
  };
  for (const edge of map.imports) add(edge.from, edge.to);
  for (const list of Object.values(map.importers)) for (const entry of list) add(entry.file, declaringFile(entry));
  return dependencies;
}

function writtenFiles(node: LintPlanNode, context: LintContext): string[] {
  return unique(node.writes.flatMap((pattern) => matchFiles(pattern, context.files)));
}

function describeMissing(pattern: string): string {
  return isGlobPattern(normalizePlanPath(pattern)) ? 'matches no file in the repository scan' : 'is not in the repository scan (missing, or hidden by .gitignore)';
}

function declaringFile(entry: SymbolImporter): string {
  return entry.symbol.slice(0, entry.symbol.lastIndexOf('#'));
}

function declaredName(entry: SymbolImporter): string {
  return entry.symbol.slice(entry.symbol.lastIndexOf('#') + 1);
}

/**
 * `Invoice.total` when the text names a member of the symbol (`Invoice.total()`), else the symbol.
 * Only the first member counts: in "rename Invoice.total() to Invoice.grandTotal()" the
 * importers use the old name.
 */
function displayName(text: string, name: string): string {
  const member = new RegExp(`(?<![\\w$])${escapeRegExp(name)}\\.([A-Za-z_$][\\w$]*)`).exec(text)?.[1];
  return member === undefined ? name : `${name}.${member}`;
}

function mentions(text: string, name: string): boolean {
  return name !== 'default' && new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`).test(text);
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

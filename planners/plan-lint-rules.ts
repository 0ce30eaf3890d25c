import { nodeKind, type LintFinding } from '../engine/index.js';
import type { ChangedSymbol } from './plan-lint-changes.js';
import { findImporters, parseSymbolKey, type RepoMap, type SymbolImporter } from './repo-scan/index.js';
import { isGlobPattern, matchFiles, normalizePlanPath, patternCovers } from './plan-lint-files.js';
import type { PlanReachability } from './plan-lint-graph.js';
import type { LintCode } from './lint-codes.js';
import { isEditingNode, type LintablePlan, type LintPlanNode } from './lintable-plan.js';

/** What every rule reads: the plan, the map, and which existing files each node writes. */
export interface LintContext {
  readonly plan: LintablePlan;
  readonly map: RepoMap;
  /** The scanned files' paths. */
  readonly files: readonly string[];
  /** Existing files to the nodes whose `writes` cover them, in plan order. */
  readonly writtenBy: ReadonlyMap<string, readonly LintPlanNode[]>;
  readonly reachability: PlanReachability;
  /** The symbols the plan changes. */
  readonly changed: readonly ChangedSymbol[];
  /** Who references each changed symbol, as far as it is known; the import graph answers the rest. */
  readonly references: ReadonlyMap<string, readonly SymbolImporter[]>;
}

/** A rule's finding before its level is set: the fields of a `LintFinding` but the level. */
export interface RuleFinding extends Omit<LintFinding, 'level' | 'code'> {
  readonly code: LintCode;
  /** The finding rests on a change a node declared (`changes`): an error whatever the code's default. */
  readonly declared?: boolean;
}

/** Said of a change lint read from a node's text rather than its `changes`: a guess, and how to make it exact. */
const INFERRED = ' — inferred from its instructions; declare `changes:` to make it exact';

/**
 * (a) A file that references a symbol some node changes (`changes`, or inferred from the node's
 * text) and that no node writes: it breaks when the symbol is renamed or its signature changes.
 * One finding per file and symbol, with the first referencing line. Files whose exports no node
 * changes are never reported.
 */
export function unwrittenImporters(context: LintContext): RuleFinding[] {
  const findings: RuleFinding[] = [];
  for (const change of context.changed) {
    const declaring = change.symbol.slice(0, change.symbol.lastIndexOf('#'));
    const name = change.symbol.slice(change.symbol.lastIndexOf('#') + 1);
    const seen = new Set<string>();
    for (const entry of referencesOf(context, change.symbol)) {
      if (entry.file === declaring || context.writtenBy.has(entry.file) || seen.has(entry.file)) continue;
      seen.add(entry.file);
      findings.push({
        code: 'unwritten-importer',
        message: `${entry.file}:${entry.line} uses ${name} (${change.symbol}, changed by ${change.nodeId}${change.declared ? '' : INFERRED}) but no node writes it: ${entry.text}`,
        nodeId: change.nodeId,
        file: entry.file,
        symbol: change.symbol,
        line: entry.line,
        text: entry.text,
        declared: change.declared,
      });
    }
  }
  return findings.sort((left, right) => ((left.file ?? '') < (right.file ?? '') ? -1 : (left.file ?? '') > (right.file ?? '') ? 1 : 0));
}

/** The known references, else the import graph's importers (of the class, for a member). */
function referencesOf(context: LintContext, symbol: string): readonly SymbolImporter[] {
  const known = context.references.get(symbol);
  if (known !== undefined) return known;
  const parsed = parseSymbolKey(symbol);
  if (parsed === undefined) return [];
  const [owner] = parsed.name.split('.');
  try {
    return findImporters(context.map, `${parsed.file}#${owner ?? parsed.name}`);
  } catch {
    return [];
  }
}

/**
 * (b) Two editing nodes where one's file imports the other's (directly or through barrels) and
 * neither depends on the other: they may run in either order or together, and the build is
 * broken in between. One finding per pair of nodes.
 */
export function unorderedEdits(context: LintContext): RuleFinding[] {
  const written = new Map(context.plan.nodes.filter(isEditingNode).map((node) => [node, writtenFiles(node, context)] as const));
  const dependencies = fileDependencies(context.map, new Set([...written.values()].flat()));
  const findings: RuleFinding[] = [];
  const reported = new Set<string>();
  for (const [node, files] of written) {
    for (const file of files) {
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
 * Two nodes that write one existing file with no dependency between them, where each node runs in
 * its own worktree: allowed (their changes merge three-way, in the order they finish), noted
 * because edits of the same lines conflict. One finding per pair of nodes, naming the first file.
 */
export function unorderedWriters(context: LintContext): RuleFinding[] {
  const findings: RuleFinding[] = [];
  const reported = new Set<string>();
  for (const [file, writers] of context.writtenBy) {
    writers.forEach((first, index) => {
      for (const second of writers.slice(index + 1)) {
        if (context.reachability.reaches(first.id, second.id) || context.reachability.reaches(second.id, first.id)) continue;
        const pair = [first.id, second.id].sort().join('\0');
        if (reported.has(pair)) continue;
        reported.add(pair);
        findings.push({
          code: 'unordered-writers',
          message: `${first.id} and ${second.id} both write ${file} and neither depends on the other: each runs in its own worktree and their changes merge three-way, but edits of the same lines conflict (onConflict decides); make one depend on the other to order them`,
          nodeId: second.id,
          file,
        });
      }
    });
  }
  return findings;
}

/**
 * (c) Reads of files that are not in the scan and that no node creates, and write globs that
 * match nothing. A literal write of a new path creates it; a node reading a file created by a
 * node it does not depend on is reported as `read-before-create`.
 */
export function missingFiles(context: LintContext): RuleFinding[] {
  const creators = new Map<string, LintPlanNode[]>();
  for (const node of context.plan.nodes) {
    for (const pattern of node.writes) {
      const path = normalizePlanPath(pattern);
      if (isGlobPattern(path) || matchFiles(path, context.files).length > 0) continue;
      creators.set(path, [...(creators.get(path) ?? []), node]);
    }
  }
  const findings: RuleFinding[] = [];
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
export function untestedEdits(context: LintContext): RuleFinding[] {
  const commands = new Set(context.plan.nodes.filter((node) => nodeKind(node.kind).needsCommand).map((node) => node.id));
  return context.plan.nodes
    .filter((node) => isEditingNode(node) && ![...context.reachability.descendants(node.id)].some((id) => commands.has(id)))
    .map((node) => ({
      code: 'untested-edit' as const,
      message: `${node.id} changes files but no command node runs after it: add a node that runs the tests and depends on ${node.id}`,
      nodeId: node.id,
    }));
}

/** Each of `files` to the files it depends on: its import edges and the declaring files of the symbols it uses. */
function fileDependencies(map: RepoMap, files: ReadonlySet<string>): Map<string, Set<string>> {
  const dependencies = new Map<string, Set<string>>();
  const add = (from: string, to: string): void => {
    if (from !== to && files.has(from)) dependencies.set(from, (dependencies.get(from) ?? new Set()).add(to));
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

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}


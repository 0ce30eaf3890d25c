import picomatch from 'picomatch';
import { findCycles } from './find-cycles.js';
import { PlanInvalidError } from './plan-errors.js';
import { planGraph, type PlanGraph } from './plan-graph.js';
import { nodeKind } from './node-kinds.js';
import { nodeLocation, type PlanIssue } from './plan-issue.js';
import { SHARED_PLAN_RULES, type PlanRules } from './plan-rules.js';
import type { Plan, PlanNode } from './plan-schema.js';
import { createReachability } from './reachability.js';
import { literalPrefix, writesOverlap, type WriteOverlap } from './writes-overlap.js';

/**
 * Every problem of a schema-valid plan at once, in a stable order: duplicate ids, dependencies
 * (unknown, self), command nodes without a command, cycles, then write-write conflicts between
 * nodes that no path of dependencies orders (only under `rules` that refuse them: with
 * `parallelWrites: 'merge'` each node has its own workspace and their changes merge in plan order).
 * An empty list means the plan can run.
 */
export function validatePlan(plan: Plan, rules: PlanRules = SHARED_PLAN_RULES): readonly PlanIssue[] {
  const graph = planGraph(plan);
  return [
    ...reservedIdIssues(plan.nodes),
    ...duplicateIdIssues(plan),
    ...dependencyIssues(plan, graph),
    ...missingCommandIssues(plan),
    ...protectedWriteIssues(plan),
    ...cycleIssues(graph),
    ...(rules.parallelWrites === 'refuse' ? writeConflictIssues(plan, graph) : []),
  ];
}

/** The plan, or a `PlanInvalidError` with every issue. */
export function assertValidPlan(plan: Plan, source?: string, rules?: PlanRules): Plan {
  const issues = validatePlan(plan, rules);
  if (issues.length > 0) throw new PlanInvalidError(issues, source);
  return plan;
}

/** The id of the planner's own events in a run's log (its requests, its tool calls): no node may take it. */
export const PLANNER_NODE_ID = 'planner';

/** Nodes that take the planner's id: their events would be the planner's (`log --node`, `inspect`). */
export function reservedIdIssues(nodes: readonly Pick<PlanNode, 'id'>[]): PlanIssue[] {
  return nodes.flatMap((node, index) =>
    node.id === PLANNER_NODE_ID ? [{ code: 'schema' as const, nodeId: node.id, message: `${nodeLocation(index, node.id)}.id: "${PLANNER_NODE_ID}" is reserved for the planner itself; choose another id` }] : [],
  );
}

function duplicateIdIssues(plan: Plan): PlanIssue[] {
  const firstIndex = new Map<string, number>();
  const issues: PlanIssue[] = [];
  plan.nodes.forEach((node, index) => {
    const first = firstIndex.get(node.id);
    if (first === undefined) firstIndex.set(node.id, index);
    else
      issues.push({
        code: 'duplicate-id',
        nodeId: node.id,
        message: `${nodeLocation(index, node.id)}.id: "${node.id}" is already the id of nodes[${first}]; ids must be unique`,
      });
  });
  return issues;
}

function dependencyIssues(plan: Plan, graph: PlanGraph): PlanIssue[] {
  const issues: PlanIssue[] = [];
  plan.nodes.forEach((node, index) => {
    const where = `${nodeLocation(index, node.id)}.dependsOn`;
    for (const dependency of new Set(node.dependsOn)) {
      if (dependency === node.id) issues.push({ code: 'self-dependency', nodeId: node.id, message: `${where}: a node cannot depend on itself` });
      else if (!graph.hasNode(dependency)) issues.push({ code: 'unknown-dependency', nodeId: node.id, message: `${where}: unknown node "${dependency}"` });
    }
  });
  return issues;
}

function missingCommandIssues(plan: Plan): PlanIssue[] {
  const issues: PlanIssue[] = [];
  plan.nodes.forEach((node, index) => {
    if (nodeKind(node.kind).needsCommand && (node.command === undefined || node.command.trim() === ''))
      issues.push({
        code: 'missing-command',
        nodeId: node.id,
        message: `${nodeLocation(index, node.id)}.command: a command node needs the command to run (e.g. "npm test")`,
      });
    if (node.simple === true && !nodeKind(node.kind).runsModel)
      issues.push({
        code: 'simple-without-model',
        nodeId: node.id,
        message: `${nodeLocation(index, node.id)}.simple: marks work for the small model (config \`smallModel\`), and a ${node.kind} node runs no model; remove it`,
      });
  });
  return issues;
}

/** Folders no node may write: the repository's history and dagent's own state (its log, its snapshots). */
const PROTECTED_FOLDERS = ['.git', '.dagent'] as const;

/**
 * Writes into `.git/` or `.dagent/` are refused before any run starts: a path with such a segment,
 * or a glob with a segment that can name one (`.g*`, `.*`, `{.git,src}`, `[.]git`, `@(.git)`): each
 * segment is tested as picomatch would match it without `dot`, so only a pattern that spells out
 * the leading dot is refused and a bare `*` or `**` stays allowed (the workspace guard and the
 * sandbox keep those folders out of its reach at run time). A pattern with a `/` inside a brace,
 * bracket or extglob group cannot be checked segment by segment and is refused too.
 */
function protectedWriteIssues(plan: Plan): PlanIssue[] {
  const issues: PlanIssue[] = [];
  plan.nodes.forEach((node, index) => {
    for (const write of node.writes) {
      const issue = protectedWriteIssue(write);
      if (issue === undefined) continue;
      issues.push({ code: 'protected-write', nodeId: node.id, file: write, message: `${nodeLocation(index, node.id)}.writes: "${write}" ${issue}` });
    }
  });
  return issues;
}

function protectedWriteIssue(write: string): string | undefined {
  // `!…` excludes paths from a node's writes (file-write-set.ts): excluding .git/ is no write to it.
  if (write.startsWith('!') && !write.startsWith('!(')) return undefined;
  const segments = globSegments(write);
  if (segments.some((segment) => segment.includes('/'))) {
    return 'has a "/" inside a {…}, […] or (…) group, so it cannot be checked against .git/ and .dagent/: list each path (or glob) as its own entry';
  }
  const folder = PROTECTED_FOLDERS.find((name) => segments.some((segment) => segmentNames(segment, name)));
  if (folder === undefined) return undefined;
  return `writes into ${folder}/, which no node may change (${folder === '.git' ? 'the repository history' : "dagent's own log and snapshots"})`;
}

/** `pattern` split at each `/` outside brace, bracket and parenthesis groups (a group keeps its `/`). */
function globSegments(pattern: string): string[] {
  const segments: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < pattern.length; index += 1) {
    const character = pattern[index]!;
    if (character === '\\') index += 1;
    else if ('{[('.includes(character)) depth += 1;
    else if ('}])'.includes(character)) depth = Math.max(0, depth - 1);
    else if (character === '/' && depth === 0) {
      segments.push(pattern.slice(start, index));
      start = index + 1;
    }
  }
  segments.push(pattern.slice(start));
  return segments;
}

function segmentNames(segment: string, folder: string): boolean {
  if (segment.toLowerCase() === folder) return true;
  if (!/[*?[{(\\]/.test(segment)) return false;
  return picomatch.isMatch(folder, segment, { dot: false, nocase: true });
}

function cycleIssues(graph: PlanGraph): PlanIssue[] {
  return findCycles(graph).map((cycle) => ({
    code: 'cycle',
    nodeId: cycle[0]!,
    message: `dependency cycle ${cycle.join(' → ')}: each node waits for the one before it, so none can start; remove one of these dependencies`,
  }));
}

/** One issue per pair of unordered nodes whose writes overlap, naming the first overlap found. */
function writeConflictIssues(plan: Plan, graph: PlanGraph): PlanIssue[] {
  const reachability = createReachability(plan, graph);
  const writers = graph
    .nodes()
    .map((id) => graph.getNodeAttribute(id, 'node'))
    .filter((node) => node.writes.length > 0);
  const issues: PlanIssue[] = [];
  for (let i = 0; i < writers.length; i++) {
    for (let j = i + 1; j < writers.length; j++) {
      const [first, second] = [writers[i]!, writers[j]!];
      if (reachability.areOrdered(first.id, second.id)) continue;
      const overlap = firstOverlap(first, second);
      if (overlap !== undefined) issues.push(writeConflictIssue(first, second, overlap));
    }
  }
  return issues;
}

function firstOverlap(first: PlanNode, second: PlanNode): WriteOverlap | undefined {
  for (const a of first.writes) {
    for (const b of second.writes) {
      const overlap = writesOverlap(a, b);
      if (overlap !== undefined) return overlap;
    }
  }
  return undefined;
}

function writeConflictIssue(first: PlanNode, second: PlanNode, overlap: WriteOverlap): PlanIssue {
  const fix = 'make one depend on the other';
  switch (overlap.kind) {
    case 'same-path':
      return {
        code: 'write-conflict',
        nodeId: second.id,
        file: overlap.file,
        message: `write conflict: ${first.id} and ${second.id} both write ${overlap.file} and no dependency orders them; ${fix}`,
      };
    case 'path-in-glob': {
      const [pathWriter, globWriter] = first.writes.includes(overlap.file) ? [first, second] : [second, first];
      return {
        code: 'write-conflict',
        nodeId: second.id,
        file: overlap.file,
        message: `write conflict: ${pathWriter.id} writes ${overlap.file}, which ${globWriter.id}'s glob ${overlap.glob} also covers, and no dependency orders them; ${fix}`,
      };
    }
    case 'globs-may-intersect': {
      const [a, b] = overlap.globs;
      const where = overlap.prefix === '' ? 'the same files' : `the same files (paths starting with "${overlap.prefix}")`;
      return {
        code: 'write-conflict',
        nodeId: second.id,
        file: literalPrefix(a).length >= literalPrefix(b).length ? a : b,
        message: `write conflict: ${first.id} writes ${a} and ${second.id} writes ${b}; the globs can match ${where} and no dependency orders them; ${fix} or narrow the globs`,
      };
    }
  }
}

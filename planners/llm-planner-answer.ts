import { z } from 'zod';
import {
  PLANNER_NODE_ID,
  PlanInvalidError,
  applyPlanPatch,
  checkPlan,
  checkPlanDocument,
  lenientPlan,
  planNodeSchema,
  planSchema,
  reservedIdIssues,
  type Plan,
  type PlanIssue,
  type PlanNode,
  type PlanPatch,
  type PlanRules,
  type ReplanTrigger,
} from '../engine/index.js';

/** The planner's own surface in the run log; no plan node may take this id (`validatePlan`). */
export { PLANNER_NODE_ID };

/** A model's answer, checked: the value it stands for, or every problem found. */
export type AnswerCheck<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly PlanIssue[] };

/** What an amendment's answer is checked against. */
export interface AmendContext {
  readonly plan: Plan;
  readonly trigger: ReplanTrigger;
  /** Ids of the nodes that already succeeded. */
  readonly completed: readonly string[];
  /** The rules the amended plan is checked by (the run's isolation). */
  readonly rules?: PlanRules | undefined;
}

const NO_JSON: AnswerCheck<never> = {
  ok: false,
  issues: [{ code: 'syntax', message: 'the answer holds no JSON object: answer with the document as one JSON object, starting with "{"' }],
};

const FENCE = /```[ \t]*([A-Za-z]*)[ \t]*\r?\n([\s\S]*?)(?:```|$)/g;
const MAX_CANDIDATES = 20;

/**
 * The JSON text of a model's answer: the first fenced block (```json or bare) that holds an
 * object, else the first top-level balanced `{…}` that parses (prose may hold stray braces),
 * else the first `{…}` at all, so its syntax error can be reported. Undefined when the answer
 * has no `{`. Pure.
 */
export function extractJsonText(answer: string): string | undefined {
  for (const match of answer.matchAll(FENCE)) {
    const language = (match[1] ?? '').toLowerCase();
    const body = (match[2] ?? '').trim();
    if ((language === '' || language.startsWith('json')) && body.startsWith('{')) return body;
  }
  let first: string | undefined;
  let start = answer.indexOf('{');
  for (let tried = 0; start >= 0 && tried < MAX_CANDIDATES; tried += 1) {
    const candidate = balancedObject(answer, start);
    first ??= candidate;
    if (parses(candidate)) return candidate;
    // The next candidate starts after this one: an object nested in a broken one is not the answer.
    start = answer.indexOf('{', start + candidate.length);
  }
  return first;
}

/** From the `{` at `start` to its matching `}` (strings and escapes respected), or to the end. */
function balancedObject(text: string, start: number): string {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return text.slice(start, index + 1);
    }
  }
  return text.slice(start).trim();
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function readJson(answer: string): AnswerCheck<unknown> {
  const text = extractJsonText(answer);
  if (text === undefined) return NO_JSON;
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    // The plan document reader words syntax errors the same way `dagent import` does.
    const check = checkPlanDocument(text, { format: 'json' });
    return { ok: false, issues: check.ok ? [{ code: 'syntax', message: 'not valid JSON' }] : check.issues };
  }
}

/** A whole plan: JSON, the schema, the graph rules (`validatePlan`), no node named `planner`. Pure. */
export function checkPlanAnswer(answer: string, rules?: PlanRules): AnswerCheck<Plan> {
  const read = readJson(answer);
  if (!read.ok) return read;
  const check = checkPlan(read.value, rules);
  return check.ok ? { ok: true, value: check.plan } : { ok: false, issues: check.issues };
}

/**
 * A full replan: a valid whole plan that stays valid once the engine puts back the nodes that
 * already succeeded (as `applyPlanPatch` does). Pure.
 */
export function checkReplaceAnswer(answer: string, context: AmendContext): AnswerCheck<PlanPatch> {
  const check = checkPlanAnswer(answer, context.rules);
  if (!check.ok) return check;
  const patch: PlanPatch = { kind: 'replace', plan: check.value };
  const applied = issuesOfApplying(patch, context);
  return applied.length > 0 ? { ok: false, issues: applied } : { ok: true, value: patch };
}

/**
 * An append patch `{ "nodes": [...] }`: each node by the node schema,
 * ids new to the plan and unique, dependencies on nodes of the plan or the patch, and the plan
 * the engine makes of it (`applyPlanPatch`: appended and rewired) valid. Pure.
 */
export function checkAppendAnswer(answer: string, context: AmendContext): AnswerCheck<PlanPatch> {
  const read = readJson(answer);
  if (!read.ok) return read;
  const value = read.value;
  const rawNodes = isObject(value) ? value['nodes'] : undefined;
  if (rawNodes === undefined) return fail({ code: 'schema', message: 'nodes: is required: answer with { "nodes": [ ...the new nodes... ] }' });
  if (!Array.isArray(rawNodes)) return fail({ code: 'schema', message: 'nodes: must be a list of nodes' });
  if (rawNodes.length === 0) return fail({ code: 'schema', message: 'nodes: give at least one new node' });
  // Checked as the `nodes` of a document, so locations read `nodes[1] (edit-e).kind` as in the answer.
  const document = { goal: context.plan.goal, nodes: rawNodes };
  if (!planSchema.safeParse(document).success) {
    // The schema's issues with the id and dependency checks of a patch (an existing node is a known dependency).
    const check = checkPlan(document);
    const schema = check.ok ? [] : check.issues.filter((issue) => issue.code === 'schema');
    return { ok: false, issues: [...schema, ...patchIdIssues(lenientPlan(document)?.nodes ?? [], context.plan)] };
  }
  const nodes: PlanNode[] = z.array(planNodeSchema).parse(rawNodes);
  const issues = [...reservedIdIssues(nodes), ...patchIdIssues(nodes, context.plan)];
  if (issues.length > 0) return { ok: false, issues };
  const patch: PlanPatch = { kind: 'append', nodes };
  const applied = issuesOfApplying(patch, context);
  return applied.length > 0 ? { ok: false, issues: applied } : { ok: true, value: patch };
}

function patchIdIssues(nodes: readonly PlanNode[], plan: Plan): PlanIssue[] {
  const existing = new Set(plan.nodes.map((node) => node.id));
  const ids = new Set(nodes.map((node) => node.id));
  const seen = new Map<string, number>();
  const issues: PlanIssue[] = [];
  nodes.forEach((node, index) => {
    const where = `nodes[${index}] (${node.id})`;
    const first = seen.get(node.id);
    if (existing.has(node.id)) {
      issues.push({ code: 'duplicate-id', nodeId: node.id, message: `${where}.id: "${node.id}" is already the id of a node of the plan; new nodes need new ids` });
    } else if (first !== undefined) {
      issues.push({ code: 'duplicate-id', nodeId: node.id, message: `${where}.id: "${node.id}" is already the id of nodes[${first}]; ids must be unique` });
    }
    if (first === undefined) seen.set(node.id, index);
    for (const dependency of new Set(node.dependsOn)) {
      if (dependency === node.id) issues.push({ code: 'self-dependency', nodeId: node.id, message: `${where}.dependsOn: a node cannot depend on itself` });
      else if (!existing.has(dependency) && !ids.has(dependency)) {
        issues.push({ code: 'unknown-dependency', nodeId: node.id, message: `${where}.dependsOn: unknown node "${dependency}" (neither in the plan nor among the new nodes)` });
      }
    }
  });
  return issues;
}

/** The problems of the plan the engine would make of the patch (cycles, write conflicts, ...). */
function issuesOfApplying(patch: PlanPatch, context: AmendContext): readonly PlanIssue[] {
  const completed = new Set(context.completed);
  try {
    applyPlanPatch(context.plan, patch, context.trigger, { frozenNodeIds: completed, completedNodeIds: completed, rules: context.rules });
    return [];
  } catch (error) {
    if (error instanceof PlanInvalidError) return error.issues;
    throw error;
  }
}

function fail(issue: PlanIssue): AnswerCheck<never> {
  return { ok: false, issues: [issue] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

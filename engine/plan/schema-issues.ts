import type { z } from 'zod';
import { EXPECTED_TYPE_WORDS, describeValue, meantField, valueAt } from '../schema-words.js';
import { nodeLocation, type PlanIssue } from './plan-issue.js';
import { planNodeSchema, planSchema } from './plan-schema.js';

type ZodIssue = z.core.$ZodIssue;
type PathKey = PropertyKey;

/**
 * zod's issues as user-readable plan issues: the location spelled the way a reader finds it in
 * the document (`nodes[2] (edit-b).kind`) and a message that says what is expected, looking at
 * the raw document for what was actually there.
 */
export function schemaIssues(error: z.ZodError, document: unknown): readonly PlanIssue[] {
  return error.issues.flatMap((issue) => issuesOf(issue, document));
}

function issuesOf(issue: ZodIssue, document: unknown): PlanIssue[] {
  const path = issue.path;
  const nodeId = nodeIdAt(path, document);
  const make = (location: string, message: string): PlanIssue =>
    nodeId === undefined ? { code: 'schema', message: `${location}: ${message}` } : { code: 'schema', nodeId, message: `${location}: ${message}` };
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => make(formatLocation(path, document), `unknown field "${key}"${suggestion(key, path)}`));
  }
  if (path.length === 0 && (document === undefined || document === null)) return [make('plan', 'the document is empty')];
  return [make(formatLocation(path, document), describeIssue(issue, valueAt(path, document)))];
}

function describeIssue(issue: ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return 'is required';
      return `must be ${EXPECTED_TYPE_WORDS[issue.expected] ?? issue.expected} (got ${describeValue(value)})`;
    case 'invalid_value':
      if (value === undefined) return `is required: one of ${issue.values.map((v) => String(v)).join(', ')}`;
      return `${describeValue(value)} is not one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'number') return issue.inclusive ? `must be at least ${issue.minimum}` : `must be greater than ${issue.minimum}`;
      return issue.message;
    default:
      return issue.message;
  }
}

/** `nodes[2] (edit-b).reads[0]`; `plan` for the document itself. */
function formatLocation(path: readonly PathKey[], document: unknown): string {
  if (path.length === 0) return 'plan';
  const inNode = path[0] === 'nodes' && typeof path[1] === 'number';
  let text = inNode ? nodeLocation(path[1] as number, idAt(document, path[1] as number)) : '';
  for (const key of path.slice(inNode ? 2 : 0)) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

function nodeIdAt(path: readonly PathKey[], document: unknown): string | undefined {
  if (path[0] !== 'nodes' || typeof path[1] !== 'number') return undefined;
  const id = idAt(document, path[1]);
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

function idAt(document: unknown, index: number): unknown {
  const node = valueAt(['nodes', index], document);
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>)['id'] : undefined;
}

const NODE_FIELDS = Object.keys(planNodeSchema.shape);
const PLAN_FIELDS = Object.keys(planSchema.shape);

/** The field meant by an unknown one: of the plan at its top, of a node in a node. */
function suggestion(key: string, path: readonly PathKey[]): string {
  return meantField(key, path.length === 0 ? PLAN_FIELDS : path[0] === 'nodes' && path.length === 2 ? NODE_FIELDS : []);
}

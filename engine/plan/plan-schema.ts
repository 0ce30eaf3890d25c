import { z } from 'zod';

/**
 * The plan document (docs/plan-document.md): what a planner emits, what `export`
 * writes and `import` reads. Nodes are strict objects: a misspelt field such as `depends_on` would
 * otherwise vanish silently and change the order of execution. The top level strips unknown
 * fields, so a `show --json` document (the plan plus its analysis) can be imported again.
 * The schema has refinements but no transforms, so `z.toJSONSchema(planSchema)` can be handed to
 * a model.
 */

export const PLAN_NODE_KINDS = ['read', 'edit', 'command', 'agent'] as const;

/** `command` runs its command directly, without a model; the other kinds run a node agent. */
export type PlanNodeKind = (typeof PLAN_NODE_KINDS)[number];

export interface PlanNode {
  /** Stable across plan versions: the scheduler, the log and replanning refer to it. */
  readonly id: string;
  readonly kind: PlanNodeKind;
  readonly title: string;
  readonly instructions: string;
  /** Workspace-relative paths or globs the node expects to read. */
  readonly reads: readonly string[];
  /** Workspace-relative paths or globs; the node may write only what these cover. */
  readonly writes: readonly string[];
  readonly dependsOn: readonly string[];
  /** The command a `command` node runs. */
  readonly command?: string;
  /** Tool names the node may use; absent means the defaults for its kind. */
  readonly tools?: readonly string[];
  /** `provider:model`, or a list of them: the first runs, the others take over in order when it fails (`fallbackModels`). */
  readonly model?: string | readonly string[];
  /** Models that take over, in order, when the node's model fails (a 5xx storm, overloaded, unknown model, a context it cannot fit). */
  readonly fallbackModels?: readonly string[];
  readonly role?: string;
  readonly maxSteps?: number;
  /** The node's own spending cap over all its attempts (USD, tokens); reaching it pauses the run like the run's budget. */
  readonly budget?: { readonly maxCostUsd?: number; readonly maxTokens?: number };
  /** The planner's estimate of the node's total tokens. */
  readonly estimate?: number;
  /**
   * Simple work a small model does well (a read, a summary, a mechanical edit of one file): with
   * config `smallModel` set, the node runs on it unless it (or its role) names its own model.
   */
  readonly simple?: boolean;
  /** The symbols an edit changes, `src/invoice.ts#Invoice.total`: plan lint checks their users are written too. */
  readonly changes?: readonly string[];
  /**
   * Changing a file its `writes` do not cover fails the node (its change is not merged) instead of
   * being only reported; overrides the plan's `strictWrites`. Enforced with `isolation: worktree`.
   */
  readonly strictWrites?: boolean;
}

export interface Plan {
  readonly goal: string;
  readonly rationale: string;
  readonly nodes: readonly PlanNode[];
  /** Every node's `strictWrites` unless the node says otherwise. */
  readonly strictWrites?: boolean;
}

export const NODE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why a read or write path is unusable, or undefined when it is fine. */
export function workspacePathProblem(path: string): string | undefined {
  if (path.length === 0) return 'must not be empty';
  if (path.includes('\\')) return `"${path}" must use "/" as the separator`;
  if (path.startsWith('/') || path.startsWith('~') || /^[A-Za-z]:/.test(path)) return `"${path}" must be workspace-relative, not absolute`;
  if (path.startsWith('!')) return `"${path}": negated globs are not allowed`;
  if (path.split('/').includes('..')) return `"${path}" must stay inside the workspace (no "..")`;
  if (path.startsWith('./')) return `"${path}": drop the leading "./"`;
  return undefined;
}

const workspacePath = z.string().superRefine((path, context) => {
  const problem = workspacePathProblem(path);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

const nonEmpty = z.string().min(1, { error: 'must not be empty' });

export const planNodeSchema = z.strictObject({
  id: z.string().regex(NODE_ID_PATTERN, { error: 'must be a short slug of letters, digits, "-", "_" or "." (e.g. "edit-invoice")' }),
  kind: z.enum(PLAN_NODE_KINDS),
  title: nonEmpty,
  instructions: z.string().default(''),
  reads: z.array(workspacePath).default([]),
  writes: z.array(workspacePath).default([]),
  dependsOn: z.array(z.string()).default([]),
  command: nonEmpty.optional(),
  tools: z.array(nonEmpty).optional(),
  model: z.union([nonEmpty, z.array(nonEmpty).min(1, { error: 'a list of models needs at least one' })]).optional(),
  fallbackModels: z.array(nonEmpty).optional(),
  role: nonEmpty.optional(),
  maxSteps: z.number().int().positive().optional(),
  budget: z.strictObject({ maxCostUsd: z.number().positive().optional(), maxTokens: z.number().int().positive().optional() }).optional(),
  estimate: z.number().int().nonnegative().optional(),
  simple: z.boolean({ error: 'must be true or false' }).optional(),
  changes: z.array(z.string().regex(/^[^#]+#[^#]+$/, { error: 'must be FILE#SYMBOL, e.g. src/invoice.ts#Invoice.total' })).optional(),
  strictWrites: z.boolean({ error: 'must be true or false' }).optional(),
});

export const planSchema = z.strictObject({
  goal: nonEmpty,
  rationale: z.string().default(''),
  nodes: z.array(planNodeSchema).min(1, { error: 'a plan needs at least one node' }),
  strictWrites: z.boolean({ error: 'must be true or false' }).optional(),
});

/** Whether a node's changes beyond its `writes` fail it: its own `strictWrites`, else the plan's, else not. */
export function strictWritesOf(plan: Pick<Plan, 'strictWrites'>, node: Pick<PlanNode, 'strictWrites'>): boolean {
  return node.strictWrites ?? plan.strictWrites ?? false;
}

// The schema's output must be a Plan; this line stops compiling when the two drift apart.
const schemaMatchesPlan: z.ZodType<Plan, unknown> = planSchema;
void schemaMatchesPlan;

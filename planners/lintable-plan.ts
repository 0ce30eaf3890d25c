import type { PlanNodeKind } from '../engine/index.js';

/**
 * The parts of a plan node lint looks at. The plan schema's nodes satisfy it; `reads` and
 * `writes` are workspace-relative paths or globs.
 */
export interface LintPlanNode {
  readonly id: string;
  readonly kind: PlanNodeKind;
  readonly reads: readonly string[];
  readonly writes: readonly string[];
  readonly dependsOn: readonly string[];
  readonly instructions?: string;
  readonly title?: string;
  readonly command?: string;
  /** The symbols the node changes, `src/invoice.ts#Invoice.total`; absent: inferred from its text. */
  readonly changes?: readonly string[];
}

export interface LintablePlan {
  /** The task; searched with each node's text for the symbols a node changes. */
  readonly goal?: string;
  readonly nodes: readonly LintPlanNode[];
}

/** Nodes that change files (by the kinds table): every `edit`, and an `agent` that declares writes. */
export { isEditingNode } from '../engine/index.js';

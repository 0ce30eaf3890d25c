import type { PlanNode, PlanNodeKind } from './plan-schema.js';

/** The tools a node gets when its plan names none: read-risk tools only, every tool, or none (it runs no model). */
export type NodeKindTools = 'read-only' | 'all' | 'none';

/**
 * Whether a node of the kind changes files, as the plan sees it: `always` (an edit that changed
 * nothing did not do its work), `declared` (when the node lists `writes`), `never`.
 */
export type NodeKindWrites = 'always' | 'declared' | 'never';

/** What a one-line rendering of a node shows beside its title: its command, or its files. */
export type NodeKindRendering = 'command' | 'files';

/** Everything that varies by node kind. Every branch on a kind reads it here. */
export interface NodeKindTraits {
  /** Runs a node agent (a model); otherwise the node runs its `command` directly. */
  readonly runsModel: boolean;
  readonly writes: NodeKindWrites;
  readonly defaultTools: NodeKindTools;
  /** The plan must give the node a non-empty `command`. */
  readonly needsCommand: boolean;
  /** Estimated tokens of a node without its own `estimate`, for the critical path (a command takes time too). */
  readonly defaultCostTokens: number;
  readonly rendering: NodeKindRendering;
  /** One line for the planner's prompt: what a node of the kind does. */
  readonly description: string;
}

/**
 * The node kinds as one table. A new kind is an entry here (the schema's enum is `PLAN_NODE_KINDS`):
 * `satisfies` names a kind without an entry, and `assertNever` every switch that misses one.
 */
export const NODE_KINDS = {
  read: {
    runsModel: true,
    writes: 'never',
    defaultTools: 'read-only',
    needsCommand: false,
    defaultCostTokens: 4_000,
    rendering: 'files',
    description: 'an agent reads files and reports the facts later nodes need (names, signatures, locations); it writes nothing',
  },
  edit: {
    runsModel: true,
    writes: 'always',
    defaultTools: 'all',
    needsCommand: false,
    defaultCostTokens: 12_000,
    rendering: 'files',
    description: 'an agent changes the files in `writes`, and no others',
  },
  command: {
    runsModel: false,
    writes: 'never',
    defaultTools: 'none',
    needsCommand: true,
    defaultCostTokens: 1_000,
    rendering: 'command',
    description: 'runs `command` in the workspace (e.g. `npm test`), without a model; the `command` field is required',
  },
  agent: {
    runsModel: true,
    writes: 'declared',
    defaultTools: 'all',
    needsCommand: false,
    defaultCostTokens: 20_000,
    rendering: 'files',
    description: 'open-ended work that fits none of the kinds above',
  },
} as const satisfies Readonly<Record<PlanNodeKind, NodeKindTraits>>;

/** The traits of a kind. */
export function nodeKind(kind: PlanNodeKind): NodeKindTraits {
  return NODE_KINDS[kind];
}

/** Nodes that change files: every kind that always writes, and a kind that writes what it declares when it declares writes. */
export function isEditingNode(node: Pick<PlanNode, 'kind' | 'writes'>): boolean {
  const { writes } = nodeKind(node.kind);
  switch (writes) {
    case 'always':
      return true;
    case 'declared':
      return node.writes.length > 0;
    case 'never':
      return false;
    default:
      return assertNever(writes);
  }
}

/** What a node's one-line rendering shows beside its title. */
export type NodeSubject =
  | { readonly shows: 'command'; readonly command: string }
  | { readonly shows: 'writes' | 'reads'; readonly files: readonly string[] };

/** What a node's one-line rendering shows beside its title, by its kind: its command, or the files it writes (else reads). */
export function nodeSubject(node: Pick<PlanNode, 'kind' | 'command' | 'reads' | 'writes'>): NodeSubject {
  const { rendering } = nodeKind(node.kind);
  switch (rendering) {
    case 'command':
      return { shows: 'command', command: node.command ?? '' };
    case 'files':
      return node.writes.length > 0 ? { shows: 'writes', files: node.writes } : { shows: 'reads', files: node.reads };
    default:
      return assertNever(rendering);
  }
}

/** The compile-time end of an exhaustive switch: a value reaching it has a case nobody handled. */
export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}

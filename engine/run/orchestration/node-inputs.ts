import { nodeKind } from '../../plan/node-kinds.js';
import type { Plan, PlanNode } from '../../plan/plan-schema.js';
import { createReachability } from '../../plan/reachability.js';
import { isGlobPattern } from '../../plan/writes-overlap.js';
import type { SessionEvent } from '../../session/event-types.js';
import { DEFAULT_ROLES, type NodeRuntime } from './execute-plan-node.js';
import type { NodeFiles } from './node-files.js';
import { nodeModels } from './node-models.js';
import type { RunMemory } from '../views/run-recovery.js';
import { resultHash, specHash, type NodeInputs } from '../views/reuse-key.js';

/** What the inputs of a node are computed from. */
export interface NodeInputsContext {
  readonly plan: Plan;
  readonly runtime: NodeRuntime;
  readonly files: NodeFiles;
  readonly memory: RunMemory;
}

/** The model input of a node that takes the run's model, whichever it is. */
const RUN_MODEL = 'run model';

/** Tools whose `path` argument is a file the node read. */
const READING_TOOLS: ReadonlySet<string> = new Set(['read_file', 'edit_file']);

/**
 * A node's inputs now: its specification, its model, its dependencies' results as the run's memory
 * has them, and the content hashes of `paths` when the node began (`NodeFiles.inputHashes`).
 */
export async function nodeInputs(context: NodeInputsContext, node: PlanNode, paths: readonly string[]): Promise<NodeInputs> {
  const dependencies: Record<string, string> = {};
  for (const id of node.dependsOn) {
    const completed = context.memory.completed.get(id);
    dependencies[id] = completed === undefined ? 'not done' : resultHash(completed);
  }
  // No path read, nothing to hash: the snapshot store (the run's node starts and snapshots) is not asked.
  const files = context.files.inputHashes === undefined || paths.length === 0 ? {} : await context.files.inputHashes(node.id, paths);
  return { spec: specHash(context.plan, node), model: modelOf(context.runtime, node), dependencies, files: { ...files } };
}

/**
 * The files a node read: the paths its model read or edited (from the attempt's events), the
 * literal paths of its `reads`, and for a node that runs a command (which may read anything) every
 * file the nodes before it changed.
 */
export function pathsRead(context: NodeInputsContext, node: PlanNode, attemptEvents: readonly SessionEvent[]): string[] {
  const paths = new Set(node.reads.filter((path) => !isGlobPattern(path)));
  for (const event of attemptEvents) {
    if (event.type !== 'assistant/message') continue;
    for (const call of event.payload.toolCalls) {
      const path = (call.args as { path?: unknown } | null)?.path;
      if (READING_TOOLS.has(call.name) && typeof path === 'string') paths.add(path.replace(/^\.\//, ''));
    }
  }
  if (!nodeKind(node.kind).runsModel) for (const path of ancestorChanges(context, node)) paths.add(path);
  return [...paths].sort();
}

function ancestorChanges(context: NodeInputsContext, node: PlanNode): string[] {
  const reach = createReachability(context.plan);
  return context.plan.nodes.filter((other) => reach.hasPath(other.id, node.id)).flatMap((other) => context.memory.completed.get(other.id)?.filesChanged ?? []);
}

/**
 * The model a node's plan or role names, as `provider:model`; `run model` for a node that takes the
 * run's model (a `resume -m` for the work left does not send succeeded nodes back); null for a command.
 */
function modelOf(runtime: NodeRuntime, node: PlanNode): string | null {
  if (!nodeKind(node.kind).runsModel) return null;
  const roles = { ...DEFAULT_ROLES, ...runtime.roles };
  const models = nodeModels(node, node.role === undefined ? undefined : roles[node.role], runtime.fallbackModels, runtime.routing);
  if (models.primary === undefined) return RUN_MODEL;
  try {
    const resolved = runtime.resolveModel(models.primary, { fromPlan: models.primary !== undefined && models.fromPlan.has(models.primary) });
    return `${resolved.provider.id}:${resolved.model}`;
  } catch {
    return models.primary;
  }
}

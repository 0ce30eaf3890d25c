import type { Plan } from '../../plan/plan-schema.js';
import type { EventLog } from '../../session/event-log.js';
import { recordNodePrompts, warmNodePrompts, type NodeRuntime } from './execute-plan-node.js';
import type { NodeFiles } from './node-files.js';
import { ownWorkspacesAtOnce } from './reads-only.js';

/**
 * Before the run starts, in the run's own process: what a node's first step would otherwise pay for
 * on the critical path. Worktrees are made ahead for the widest stage of nodes that need their own
 * (while the first nodes go on), and the node kinds' prompts are recorded in `log` and counted.
 * A run `dispatched` to workers only records the prompts (the workers make their own worktrees and
 * counts): the first node of each kind on a worker then sends no `prompt/recorded` (13–19 KB) with
 * its first request, when its prompt is the same (the run's workspace, tools and config).
 */
export async function prepareNodes(runtime: NodeRuntime, plan: Plan, files: NodeFiles, concurrency: number, log: EventLog, dispatched = false): Promise<void> {
  if (dispatched) return recordNodePrompts(runtime, plan, log);
  files.prepare?.(ownWorkspacesAtOnce(runtime, plan, concurrency));
  await warmNodePrompts(runtime, plan, log);
}

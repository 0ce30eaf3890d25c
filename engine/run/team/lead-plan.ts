import type { Plan } from '../../plan/plan-schema.js';
import { TEAM_TOOL_NAMES } from './team-limits.js';

/** The id of a team run's lead node. */
export const LEAD_NODE_ID = 'lead';

/** What the lead is told besides the task: how it grows the plan. */
export const LEAD_INSTRUCTIONS = [
  'You lead a team on the task above. You change no file yourself: split the work into pieces and hand each one to a member with `delegate`',
  '(id, title, complete instructions, the files it reads and writes, dependsOn for a member that needs the change of one you delegated before).',
  'Members start at once and run in parallel when their writes do not overlap. Collect their results with `await_nodes`;',
  'when a result shows more is needed, delegate that too. When every piece is done, check the whole (for example, run the tests)',
  'and answer with a short summary of what the team changed.',
].join(' ');

/**
 * Plan v1 of a team run (`dagent team`): one agent node, the lead, with the task, how to
 * delegate, and its tools (`tools`: the given ones and the team tools). It writes nothing; the
 * nodes it delegates do, each added by a new plan version.
 */
export function teamLeadPlan(task: string, tools: readonly string[]): Plan {
  return {
    goal: task,
    rationale: 'team mode: the lead grows the plan by delegating',
    nodes: [
      {
        id: LEAD_NODE_ID,
        kind: 'agent',
        title: 'Lead the team',
        instructions: `${task}\n\n${LEAD_INSTRUCTIONS}`,
        reads: [],
        writes: [],
        dependsOn: [],
        tools: [...new Set([...tools, ...TEAM_TOOL_NAMES])].sort(),
      },
    ],
  };
}

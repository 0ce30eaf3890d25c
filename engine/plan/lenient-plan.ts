import { PLAN_NODE_KINDS, type Plan, type PlanNode, type PlanNodeKind } from './plan-schema.js';

/**
 * What the graph checks can read of a plan document the schema refused: every node with a string
 * id, its string dependencies and writes, its kind when it is a known one and its command when it
 * has one (a wrong value is the schema's to report). Lets `checkPlan` list a schema error and an
 * unknown dependency or a cycle in one go. Undefined when there is no list of nodes to read.
 */
export function lenientPlan(document: unknown): Plan | undefined {
  if (!isRecord(document) || !Array.isArray(document['nodes'])) return undefined;
  const nodes = document['nodes'].filter(isRecord).flatMap((node): PlanNode[] => {
    const id = node['id'];
    if (typeof id !== 'string' || id === '') return [];
    const kind = PLAN_NODE_KINDS.find((candidate) => candidate === node['kind']);
    return [
      {
        id,
        // An unknown kind is the schema's finding; as `agent` it asks for no command.
        kind: kind ?? ('agent' satisfies PlanNodeKind),
        title: '',
        instructions: '',
        reads: [],
        writes: strings(node['writes']),
        dependsOn: strings(node['dependsOn']),
        ...(node['command'] === undefined ? {} : { command: typeof node['command'] === 'string' ? node['command'] : '(not a string)' }),
      },
    ];
  });
  return { goal: '', rationale: '', nodes };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

import { planEdges, planStages, type Plan } from '../../engine/read-face.js';

/**
 * The plan as a Graphviz digraph: one cluster per stage, one box per node (id, kind, title), one
 * edge per dependency. `dot -Tsvg` draws it.
 */
export function renderPlanDot(plan: Plan): string {
  const byId = new Map(plan.nodes.map((node) => [node.id, node]));
  const lines = ['digraph plan {', '  rankdir=TB;', '  node [shape=box];'];
  planStages(plan).forEach((stage, index) => {
    lines.push(`  subgraph cluster_stage_${index + 1} {`, `    label=${quote(`stage ${index + 1}`)};`, '    style=dashed;');
    for (const id of stage) {
      const node = byId.get(id)!;
      lines.push(`    ${quote(node.id)} [label=${quote(`${node.id} (${node.kind})\n${node.title}`)}];`);
    }
    lines.push('  }');
  });
  for (const edge of planEdges(plan)) lines.push(`  ${quote(edge.from)} -> ${quote(edge.to)};`);
  lines.push('}');
  return lines.join('\n');
}

/** A DOT string: backslashes and quotes escaped, newlines as `\n` line breaks. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

import { planEdges, planStages, type Plan } from '../../engine/read-face.js';

/**
 * The plan as a Mermaid flowchart: one subgraph per stage, one box per node (id, kind, title),
 * one arrow per dependency. Node ids are made Mermaid-safe (`n_edit_a`); labels are escaped.
 */
export function renderPlanMermaid(plan: Plan): string {
  const ids = mermaidIds(plan);
  const byId = new Map(plan.nodes.map((node) => [node.id, node]));
  const lines = ['flowchart TD'];
  planStages(plan).forEach((stage, index) => {
    lines.push(`  subgraph stage_${index + 1}["stage ${index + 1}"]`);
    for (const id of stage) {
      const node = byId.get(id)!;
      lines.push(`    ${ids.get(id)!}["${escapeLabel(`${node.id} (${node.kind})`)}<br/>${escapeLabel(node.title)}"]`);
    }
    lines.push('  end');
  });
  for (const edge of planEdges(plan)) lines.push(`  ${ids.get(edge.from)!} --> ${ids.get(edge.to)!}`);
  return lines.join('\n');
}

function mermaidIds(plan: Plan): ReadonlyMap<string, string> {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const node of plan.nodes) {
    const base = `n_${node.id.replace(/[^A-Za-z0-9_]/g, '_')}`;
    let id = base;
    for (let suffix = 2; used.has(id); suffix++) id = `${base}_${suffix}`;
    used.add(id);
    ids.set(node.id, id);
  }
  return ids;
}

function escapeLabel(text: string): string {
  return text.replace(/#/g, '#35;').replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;').replace(/\r?\n/g, ' ');
}

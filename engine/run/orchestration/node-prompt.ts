import type { PromptSection } from '../../context/system-prompt.js';
import type { Plan, PlanNode } from '../../plan/plan-schema.js';
import type { CompletedNode } from '../../plan/planner.js';

/**
 * The static system sections every node of a run shares, byte for byte, so parallel siblings
 * hit the same cached prompt prefix. Nothing node-specific goes here: that is the instruction.
 */
export const NODE_SYSTEM_SECTIONS: readonly PromptSection[] = [
  {
    id: 'identity',
    order: 0,
    text: [
      'You are one node of a plan-and-execute coding agent working in a repository.',
      'A plan splits the task into nodes; other nodes run before, after or beside you. Do exactly your part.',
    ].join('\n'),
  },
  {
    id: 'rules',
    order: 10,
    text: [
      'Rules:',
      '- Use tools to look before you change anything: read a file before you edit it.',
      '- Paths are relative to the workspace root. Never try to leave the workspace.',
      '- Write only the files your node may write. If the plan missed a file that must change, call report_missing_work with the file and the reason, then finish your own part.',
      '- Prefer edit_file with an exact, unique old_string over rewriting whole files.',
      '- A tool error is information: read it and adapt. If the user rejects an operation, take another approach.',
      '- When your part is done, answer without calling tools: state what you did and which files changed, in a few lines. Other nodes read that answer.',
    ].join('\n'),
  },
];

const KIND_GUIDANCE: Readonly<Record<PlanNode['kind'], string>> = {
  read: 'This is a read node: read and understand, change nothing. Your answer is handed to the nodes that depend on you, so put in it the facts they need (names, signatures, locations).',
  edit: 'This is an edit node: make the change in the files you may write, then check it (e.g. read the result back).',
  agent: 'This is an open-ended node: do what the instructions say with the tools you have.',
  command: 'This is a command node.',
};

/**
 * The node's pinned instruction: goal, its part (and its role, when it has one), its files. The
 * role is told here rather than in the system prompt, so siblings with different roles keep one
 * system prompt and tool list: the cached prefix they share.
 */
export function nodeInstruction(plan: Plan, node: PlanNode, rolePrompt?: string): string {
  const lines = [`Task of the whole plan: ${plan.goal}`, '', `Your node: ${node.id} — ${node.title}`, KIND_GUIDANCE[node.kind]];
  if (rolePrompt !== undefined && rolePrompt.trim() !== '') lines.push('', rolePrompt.trim());
  if (node.instructions.trim() !== '') lines.push('', node.instructions.trim());
  if (node.reads.length > 0) lines.push('', `Files to read: ${node.reads.join(', ')}`);
  lines.push(node.writes.length > 0 ? `Files you may write: ${node.writes.join(', ')}` : 'You may not write any file.');
  return lines.join('\n');
}

/** What one finished dependency hands over, as the node reads it. */
export function handoffMessage(dependency: PlanNode | undefined, completed: CompletedNode): string {
  const title = dependency === undefined ? completed.nodeId : `${completed.nodeId} (${dependency.title})`;
  const files = completed.filesChanged.length > 0 ? `\nFiles changed: ${completed.filesChanged.join(', ')}` : '';
  return `Result of ${title}:\n${completed.result.trim() || '(no answer)'}${files}`;
}

/**
 * What a node is handed before its instruction runs: one message per direct dependency that
 * succeeded, in the order the node lists them — the same whether the node runs in the scheduler's
 * process or on a worker. (What the dependencies' own dependencies handed over reached the node
 * through them.)
 */
export function handoffsFor(nodes: readonly PlanNode[], node: PlanNode, completed: ReadonlyMap<string, CompletedNode>): string[] {
  return node.dependsOn.flatMap((id) => {
    const result = completed.get(id);
    return result === undefined ? [] : [handoffMessage(nodes.find((candidate) => candidate.id === id), result)];
  });
}

import { describe, expect, it } from 'vitest';
import { isEmptyPlanDiff, renderPlanDiff, type Plan } from '../../../engine/index.js';
import { parsePlan } from '../../../engine/plan/check-plan.js';
import { diffPlans } from '../../../engine/plan/plan-diff.js';
import { refactorPlan } from './plan-fixtures.js';

/** Version 2 of the refactor: E was missed, B now writes a second file, C's instructions grew, D is gone. */
function secondVersion(first: Plan): Plan {
  const nodes = first.nodes
    .filter((node) => node.id !== 'edit-d')
    .map((node) => {
      if (node.id === 'edit-b') return { ...node, writes: ['src/b.ts', 'src/b-helpers.ts'], model: 'deepseek:deepseek-chat' };
      if (node.id === 'edit-c') return { ...node, instructions: 'Implement getArea() in C. '.repeat(5) };
      if (node.id === 'test') return { ...node, dependsOn: ['edit-c', 'edit-e'] };
      return node;
    });
  const editE = { id: 'edit-e', kind: 'edit', title: 'Update E', instructions: '', reads: [], writes: ['src/e.ts'], dependsOn: ['edit-b'] } as const;
  return parsePlan({ ...first, goal: `${first.goal}, including E`, nodes: [...nodes, editE] });
}

describe('diffPlans', () => {
  const first = refactorPlan();
  const second = secondVersion(first);

  it('finds added, removed and changed nodes and edges', () => {
    const diff = diffPlans(first, second);
    expect(diff.planChanges).toEqual([{ field: 'goal', before: first.goal, after: second.goal }]);
    expect(diff.addedNodes.map((node) => node.id)).toEqual(['edit-e']);
    expect(diff.removedNodes.map((node) => node.id)).toEqual(['edit-d']);
    expect(diff.changedNodes).toEqual([
      {
        id: 'edit-b',
        changes: [
          { field: 'writes', before: ['src/b.ts'], after: ['src/b.ts', 'src/b-helpers.ts'] },
          { field: 'model', before: undefined, after: 'deepseek:deepseek-chat' },
        ],
      },
      { id: 'edit-c', changes: [{ field: 'instructions', before: '', after: 'Implement getArea() in C. '.repeat(5) }] },
    ]);
    expect(diff.addedEdges).toEqual([
      { from: 'edit-e', to: 'test' },
      { from: 'edit-b', to: 'edit-e' },
    ]);
    expect(diff.removedEdges).toEqual([
      { from: 'edit-b', to: 'edit-d' },
      { from: 'edit-d', to: 'test' },
    ]);
  });

  it('renders the diff as +/-/~ lines', () => {
    expect(renderPlanDiff(diffPlans(first, second))).toBe(
      [
        `~ goal: "${first.goal}" → "${second.goal}"`,
        '+ edit-e (edit) Update E · writes src/e.ts',
        '- edit-d (edit) Call the new method in D · writes src/d.ts',
        '~ edit-b.writes: ["src/b.ts"] → ["src/b.ts","src/b-helpers.ts"]',
        '~ edit-b.model: (none) → "deepseek:deepseek-chat"',
        '~ edit-c.instructions: changed',
        '+ edge edit-e → test',
        '+ edge edit-b → edit-e',
        '- edge edit-b → edit-d',
        '- edge edit-d → test',
      ].join('\n'),
    );
  });

  it('sees no change in a reordered copy', () => {
    const reordered = { ...first, nodes: [...first.nodes].reverse() };
    const diff = diffPlans(first, reordered);
    expect(isEmptyPlanDiff(diff)).toBe(true);
    expect(renderPlanDiff(diff)).toBe('no changes');
  });

  it("names a change of a node's budget, its only change", () => {
    const capped = parsePlan({ ...first, nodes: first.nodes.map((node) => (node.id === 'edit-b' ? { ...node, budget: { maxTokens: 6000 } } : node)) });
    const raised = parsePlan({ ...first, nodes: first.nodes.map((node) => (node.id === 'edit-b' ? { ...node, budget: { maxTokens: 60000 } } : node)) });
    const diff = diffPlans(capped, raised);
    expect(isEmptyPlanDiff(diff)).toBe(false);
    expect(renderPlanDiff(diff)).toBe('~ edit-b.budget: {"maxTokens":6000} → {"maxTokens":60000}');
  });

  it.each([
    { field: 'fallbackModels', value: ['deepseek:deepseek-chat'] },
    { field: 'simple', value: true },
    { field: 'changes', value: ['src/b.ts#area'] },
    { field: 'strictWrites', value: true },
  ])("names a node's $field when only it changed", ({ field, value }) => {
    const changed = parsePlan({ ...first, nodes: first.nodes.map((node) => (node.id === 'edit-b' ? { ...node, [field]: value } : node)) });
    expect(renderPlanDiff(diffPlans(first, changed))).toBe(`~ edit-b.${field}: (none) → ${JSON.stringify(value)}`);
  });

  it("names a change of the plan's own strictWrites", () => {
    expect(renderPlanDiff(diffPlans(first, { ...first, strictWrites: true }))).toBe('~ strictWrites: (none) → true');
  });
});

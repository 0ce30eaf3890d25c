import { describe, expect, it } from 'vitest';
import { type PlanInvalidError, renderPlanDiff } from '../../../engine/index.js';
import { amendPlan } from '../../../engine/plan/amend-plan.js';
import { diffPlans } from '../../../engine/plan/plan-diff.js';
import { node, refactorPlan } from './plan-fixtures.js';

const done = ['read-a', 'read-b', 'read-c', 'read-d', 'edit-a'];

describe('amendPlan (append and rewire)', () => {
  const plan = refactorPlan();

  it('appends the missed work and makes the pending dependents of the affected node wait for it', () => {
    const editE = node('edit-e', 'edit', { title: 'Update E', writes: ['src/e.ts'], dependsOn: ['edit-a'] });
    const amendment = amendPlan(plan, { newNodes: [editE], affectedNodeId: 'edit-b', completedNodeIds: done });
    expect(amendment.addedNodeIds).toEqual(['edit-e']);
    expect(amendment.rewiredNodeIds).toEqual(['edit-d']);
    expect(amendment.plan.nodes.find((n) => n.id === 'edit-d')!.dependsOn).toEqual(['edit-b', 'edit-e']);
    expect(renderPlanDiff(diffPlans(plan, amendment.plan))).toBe(
      ['+ edit-e (edit) Update E · writes src/e.ts', '+ edge edit-e → edit-d', '+ edge edit-a → edit-e'].join('\n'),
    );
  });

  it('leaves completed nodes exactly as they were', () => {
    const fixA = node('fix-a', 'edit', { writes: ['src/a2.ts'], dependsOn: ['edit-a'] });
    const amendment = amendPlan(plan, { newNodes: [fixA], affectedNodeId: 'edit-a', completedNodeIds: done });
    for (const id of done) expect(amendment.plan.nodes.find((n) => n.id === id)).toEqual(plan.nodes.find((n) => n.id === id));
    expect(amendment.rewiredNodeIds).toEqual(['edit-b', 'edit-c']);
  });

  it('rewires only to the new nodes nothing else waits on', () => {
    const first = node('edit-e', 'edit', { writes: ['src/e.ts'], dependsOn: ['edit-a'] });
    const second = node('check-e', 'command', { command: 'npm run lint', dependsOn: ['edit-e'] });
    const amendment = amendPlan(plan, { newNodes: [first, second], affectedNodeId: 'edit-c', completedNodeIds: done });
    expect(amendment.plan.nodes.find((n) => n.id === 'test')!.dependsOn).toEqual(['edit-c', 'edit-d', 'check-e']);
  });

  it('rewires past a completed descendant of the affected node', () => {
    const completed = [...done, 'edit-b', 'edit-d'];
    const editE = node('edit-e', 'edit', { writes: ['src/e.ts'], dependsOn: ['edit-b'] });
    const amendment = amendPlan(plan, { newNodes: [editE], affectedNodeId: 'edit-b', completedNodeIds: completed });
    expect(amendment.rewiredNodeIds).toEqual(['test']);
    expect(amendment.plan.nodes.find((n) => n.id === 'edit-d')).toEqual(plan.nodes.find((n) => n.id === 'edit-d'));
  });

  it('refuses a patch that makes the plan invalid, with the issues', () => {
    const clash = node('edit-c2', 'edit', { writes: ['src/c.ts'], dependsOn: ['edit-a'] });
    expect(() => amendPlan(plan, { newNodes: [clash], affectedNodeId: 'edit-b', completedNodeIds: done })).toThrow(
      'amended plan: write conflict: edit-c and edit-c2 both write src/c.ts and no dependency orders them; make one depend on the other',
    );
    const loop = node('edit-e', 'edit', { writes: ['src/e.ts'], dependsOn: ['edit-d'] });
    try {
      amendPlan(plan, { newNodes: [loop], affectedNodeId: 'edit-b', completedNodeIds: done });
      expect.unreachable();
    } catch (error) {
      expect((error as PlanInvalidError).issues.map((issue) => issue.code)).toEqual(['cycle']);
    }
    expect(() => amendPlan(plan, { newNodes: [], affectedNodeId: 'nope', completedNodeIds: done })).toThrow('amend: the plan has no node "nope"');
  });
});

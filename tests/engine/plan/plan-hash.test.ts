import { describe, expect, it } from 'vitest';
import { parsePlan } from '../../../engine/plan/check-plan.js';
import { planHash } from '../../../engine/plan/plan-hash.js';
import { refactorPlan } from './plan-fixtures.js';

describe('planHash', () => {
  const plan = refactorPlan();

  it('is a short stable hex digest', () => {
    expect(planHash(plan)).toMatch(/^[0-9a-f]{16}$/);
    expect(planHash(plan)).toBe(planHash(refactorPlan()));
  });

  it('ignores key order and defaults spelt out or left out', () => {
    const reordered = JSON.parse(JSON.stringify(plan, Object.keys(plan).reverse().concat(['id', 'kind', 'title', 'instructions', 'reads', 'writes', 'dependsOn', 'command'])));
    expect(planHash(parsePlan(reordered))).toBe(planHash(plan));
    const sparse = { goal: plan.goal, rationale: plan.rationale, nodes: plan.nodes.map(({ instructions: _i, ...rest }) => rest) };
    expect(planHash(parsePlan(sparse))).toBe(planHash(plan));
  });

  it('changes with any change of content', () => {
    const edited = { ...plan, nodes: plan.nodes.map((n) => (n.id === 'test' ? { ...n, command: 'npm test -- --run' } : n)) };
    expect(planHash(edited)).not.toBe(planHash(plan));
    const widened = { ...plan, nodes: plan.nodes.map((n) => (n.kind === 'edit' ? { ...n, writes: [...n.writes, 'src/extra.ts'] } : n)) };
    expect(planHash(widened)).not.toBe(planHash(plan));
  });
});

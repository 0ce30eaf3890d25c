import { describe, expect, it } from 'vitest';
import type { PlanStatus } from '../../../engine/index.js';
import { IllegalPlanTransitionError, isFinalPlanStatus, isPlanStatus, PLAN_STATUSES, transitionPlan } from '../../../engine/plan/plan-status.js';

const LEGAL: readonly [PlanStatus, PlanStatus][] = [
  ['draft', 'awaiting_approval'],
  ['draft', 'approved'],
  ['draft', 'rejected'],
  ['draft', 'superseded'],
  ['awaiting_approval', 'approved'],
  ['awaiting_approval', 'rejected'],
  ['awaiting_approval', 'superseded'],
  ['approved', 'rejected'],
  ['approved', 'superseded'],
];

describe('transitionPlan', () => {
  const all = PLAN_STATUSES.flatMap((from) => PLAN_STATUSES.map((to) => [from, to] as const));
  it.each(all)('%s → %s', (from, to) => {
    const legal = LEGAL.some(([a, b]) => a === from && b === to);
    if (legal) expect(transitionPlan(from, to)).toBe(to);
    else expect(() => transitionPlan(from, to)).toThrow(IllegalPlanTransitionError);
  });

  it('says what was refused', () => {
    expect(() => transitionPlan('rejected', 'approved')).toThrow('a plan that is rejected cannot become approved');
    expect(() => transitionPlan('superseded', 'awaiting_approval')).toThrow('a plan that is superseded cannot become awaiting approval');
  });

  it('knows statuses and which are final', () => {
    expect(isPlanStatus('awaiting_approval')).toBe(true);
    expect(isPlanStatus('running')).toBe(false);
    expect(PLAN_STATUSES.filter(isFinalPlanStatus)).toEqual(['rejected', 'superseded']);
  });
});

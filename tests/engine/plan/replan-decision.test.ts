import { describe, expect, it } from 'vitest';
import { replanDecision, type ReplanDecision, type ReplanInput } from '../../../engine/plan/replan-decision.js';

describe('replanDecision', () => {
  it.each<[ReplanInput, ReplanDecision]>([
    [{ succeeded: 0, total: 10, replansSoFar: 0 }, 'full'],
    [{ succeeded: 4, total: 10, replansSoFar: 0 }, 'full'],
    [{ succeeded: 5, total: 10, replansSoFar: 0 }, 'append'],
    [{ succeeded: 9, total: 10, replansSoFar: 2 }, 'append'],
    [{ succeeded: 9, total: 10, replansSoFar: 3 }, 'give-up'],
    [{ succeeded: 1, total: 10, replansSoFar: 3 }, 'give-up'],
    [{ succeeded: 3, total: 10, replansSoFar: 0, threshold: 0.3 }, 'append'],
    [{ succeeded: 7, total: 10, replansSoFar: 0, threshold: 0.8 }, 'full'],
    [{ succeeded: 5, total: 10, replansSoFar: 1, maxReplans: 1 }, 'give-up'],
    [{ succeeded: 5, total: 10, replansSoFar: 0, maxReplans: 0 }, 'give-up'],
    [{ succeeded: 0, total: 0, replansSoFar: 0 }, 'full'],
  ])('%o → %s', (input, decision) => {
    expect(replanDecision(input)).toBe(decision);
  });

  it('refuses impossible counts', () => {
    expect(() => replanDecision({ succeeded: 3, total: 2, replansSoFar: 0 })).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { planDrift } from '../../../cli/eval/index.js';

describe('planDrift', () => {
  it.each([
    { planned: ['src/a.ts', 'src/b.ts'], changed: ['src/a.ts', 'src/b.ts'], unplanned: [], unwritten: [] },
    { planned: ['src/a.ts', 'CHANGELOG.md'], changed: ['src/a.ts'], unplanned: [], unwritten: ['CHANGELOG.md'] },
    { planned: ['src/a.ts'], changed: ['src/a.ts', 'src/c.ts'], unplanned: ['src/c.ts'], unwritten: [] },
    { planned: ['src/**/*.ts'], changed: ['src/deep/x.ts', 'README.md'], unplanned: ['README.md'], unwritten: [] },
    { planned: [], changed: ['a.txt'], unplanned: ['a.txt'], unwritten: [] },
  ])('plan $planned, changed $changed', ({ planned, changed, unplanned, unwritten }) => {
    expect(planDrift(planned, changed)).toEqual({ unplanned, unwritten });
  });
});

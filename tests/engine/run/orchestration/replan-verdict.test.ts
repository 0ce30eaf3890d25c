import { describe, expect, it } from 'vitest';
import type { ReplanTrigger } from '../../../../engine/plan/planner.js';
import type { NodeStatus } from '../../../../engine/scheduler/node-status.js';
import { replanVerdict, reviewAfterReplan } from '../../../../engine/run/orchestration/replan-verdict.js';

const FAILED_B: ReplanTrigger = { kind: 'failure', nodeId: 'b', error: 'tests failed\nat line 3' };
const WAITING_B: ReplanTrigger = { kind: 'failure', nodeId: 'b', error: 'a write was denied: write_file b.ts …', waitsFor: 'human-approval' };
const MISSED_B: ReplanTrigger = { kind: 'missed-work', nodeId: 'b', title: 'Update the docs', files: ['docs/a.md'], reason: 'the API changed' };
const LIMITS = { replanThreshold: 0.5, maxReplans: 3 };

/** Statuses of nodes a, b, c, d in order, from a compact string: s succeeded, r running, f failed, p pending. */
function statuses(letters: string): Map<string, NodeStatus> {
  const names: Record<string, NodeStatus> = { s: 'succeeded', r: 'running', f: 'failed', p: 'pending' };
  return new Map([...letters].map((letter, index) => [String.fromCharCode(97 + index), names[letter]!]));
}

describe('replanVerdict: the replanning rules for one trigger', () => {
  it.each([
    // progress ≥ threshold: append; below: full; without a planner a full replan becomes an append
    { story: 'most nodes done: append', nodes: 'ssfp', replans: 0, planner: true, trigger: FAILED_B, kind: 'replan', mode: 'append', progress: 0.5, frozen: ['a', 'b'] },
    { story: 'little done: plan again in full', nodes: 'sfpp', replans: 0, planner: true, trigger: FAILED_B, kind: 'replan', mode: 'full', progress: 0.25, frozen: ['a'] },
    { story: 'little done, no planner: missed work still gets its node appended', nodes: 'sfpp', replans: 0, planner: false, trigger: MISSED_B, kind: 'replan', mode: 'append', progress: 0.25, frozen: ['a'] },
    { story: 'running nodes are frozen with succeeded ones', nodes: 'srfp', replans: 1, planner: true, trigger: MISSED_B, kind: 'replan', mode: 'full', progress: 0.25, frozen: ['a', 'b'] },
    { story: 'the limit reached: give up, whatever the progress', nodes: 'sssf', replans: 3, planner: true, trigger: FAILED_B, kind: 'give-up', mode: undefined, progress: 0.75, frozen: undefined },
    { story: 'a failure that waits for a human stands: no replan', nodes: 'sfpp', replans: 0, planner: true, trigger: WAITING_B, kind: 'stand', mode: undefined, progress: 0.25, frozen: undefined },
    { story: 'it stands past the limit too (nothing to give up)', nodes: 'sssf', replans: 3, planner: true, trigger: WAITING_B, kind: 'stand', mode: undefined, progress: 0.75, frozen: undefined },
  ])('$story', ({ nodes, replans, planner, trigger, kind, mode, progress, frozen }) => {
    const verdict = replanVerdict({ trigger, statuses: statuses(nodes), replansSoFar: replans, settings: LIMITS, hasPlanner: planner });

    expect(verdict.kind).toBe(kind);
    expect(verdict.progress).toBe(progress);
    if (verdict.kind === 'replan') {
      expect(verdict.mode).toBe(mode);
      expect([...verdict.frozen].sort()).toEqual(frozen);
      expect([...verdict.completed].every((id) => statuses(nodes).get(id) === 'succeeded')).toBe(true);
    }
  });

  it('a merge conflict appends a resolving node even with little done (the rest of the plan stands)', () => {
    const verdict = replanVerdict({ trigger: FAILED_B, statuses: statuses('sfpp'), replansSoFar: 0, settings: LIMITS, hasPlanner: true, conflict: true });
    expect(verdict).toMatchObject({ kind: 'replan', mode: 'append', reason: "replan (append) after b's merge conflict" });
  });

  it.each([
    { trigger: FAILED_B, nodes: 'ssfp', reason: 'replan (append) after b failed: tests failed' },
    { trigger: MISSED_B, nodes: 'sfpp', reason: 'replan (full): b reported missed work: Update the docs' },
    { trigger: WAITING_B, nodes: 'sfpp', reason: "b waits for a human's approval" },
  ])('names the new version after its trigger: $reason', ({ trigger, nodes, reason }) => {
    const verdict = replanVerdict({ trigger, statuses: statuses(nodes), replansSoFar: 0, settings: LIMITS, hasPlanner: true });

    expect(verdict.reason).toBe(reason);
  });

  it('says which limit stopped it when it gives up', () => {
    const verdict = replanVerdict({ trigger: FAILED_B, statuses: statuses('sf'), replansSoFar: 2, settings: { replanThreshold: 0.5, maxReplans: 2 }, hasPlanner: true });

    expect(verdict).toMatchObject({ kind: 'give-up', reason: 'the limit of 2 replans is reached' });
  });
});

describe('reviewAfterReplan: whether a replanned version waits for review', () => {
  it.each([
    { story: 'nothing to review: it runs at once', reviewReplans: false, reviewCommandChanges: true, commands: [], lint: [], pause: undefined },
    { story: 'every replan reviewed', reviewReplans: true, reviewCommandChanges: true, commands: [], lint: [], pause: 'plan v4 waits for review after a replan' },
    {
      story: 'new commands need an approval',
      reviewReplans: false,
      reviewCommandChanges: true,
      commands: ['test', 'lint'],
      lint: [],
      pause: 'plan v4 waits for approval: the replan added or changed command nodes (test, lint), which the approved plan did not cover',
    },
    { story: 'new commands under auto: no review', reviewReplans: false, reviewCommandChanges: false, commands: ['test'], lint: [], pause: undefined },
    { story: 'lint errors stop it, with the findings', reviewReplans: false, reviewCommandChanges: false, commands: [], lint: ['a writes outside', 'b has no reads'], pause: 'plan v4 waits for review after a replan (lint: a writes outside; b has no reads)' },
    { story: 'every replan reviewed, commands added: the review reason wins', reviewReplans: true, reviewCommandChanges: true, commands: ['test'], lint: [], pause: 'plan v4 waits for review after a replan' },
  ])('$story', ({ reviewReplans, reviewCommandChanges, commands, lint, pause }) => {
    const review = reviewAfterReplan({ settings: { reviewReplans, reviewCommandChanges }, newCommands: commands, lintErrors: lint });

    expect(review?.(4)).toBe(pause);
  });
});

import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../engine/session/event-types.js';
import { NOT_REPLANNED, unplannedWork, unplannedWorkError } from '../../../../engine/run/views/unplanned-work.js';

let seq = 0;
function event<T extends SessionEvent['type']>(type: T, nodeId: string | null, payload: SessionEvent<T>['payload']): SessionEvent {
  seq += 1;
  return { seq, runId: 'r-1', nodeId, turn: 1, step: 1, type, payload } as unknown as SessionEvent;
}

const report = (nodeId: string, title: string) => event('work/reported', nodeId, { title, files: [`${title}.ts`], reason: 'missed' });

describe('reported work that no plan version took up', () => {
  it('pairs each missed-work replan with the oldest report of its node, and keeps the ones not amended with their reason', () => {
    const events = [
      report('edit-a', 'b'),
      report('edit-a', 'c'),
      report('edit-d', 'e'),
      event('replan/started', null, { trigger: 'missed-work', progress: 0.5, mode: 'append', nodeId: 'edit-a' }),
      event('replan/finished', null, { outcome: 'failed', error: 'the planner stopped' }),
      event('replan/started', null, { trigger: 'missed-work', progress: 0.5, mode: 'append', nodeId: 'edit-a' }),
      event('replan/finished', null, { outcome: 'amended', version: 2 }),
      event('replan/started', null, { trigger: 'failure', progress: 0.5, mode: 'append', nodeId: 'edit-d' }),
      event('replan/finished', null, { outcome: 'gave-up', reason: 'the limit of 3 replans is reached' }),
    ];

    const unplanned = unplannedWork(events);

    // edit-a's first report failed and its second was amended: the failed one is left (the first replan took it).
    expect(unplanned.map((work) => [work.trigger.nodeId, work.trigger.title, work.why])).toEqual([
      ['edit-a', 'b', 'the replan failed: the planner stopped'],
      ['edit-d', 'e', NOT_REPLANNED],
    ]);
    expect(unplannedWorkError(unplanned)).toBe('node edit-a reported missed work that was never planned ("b"): the replan failed: the planner stopped (and 1 more report)');
  });

  it('tries each report again after a resume, oldest first, so a second failure keeps the same report', () => {
    const events = [
      event('run/started', null, { pid: 1, host: 'h', planVersion: 1 }),
      report('edit-a', 'b'),
      event('replan/started', null, { trigger: 'missed-work', progress: 1, mode: 'append', nodeId: 'edit-a' }),
      event('replan/finished', null, { outcome: 'failed', error: 'no key' }),
      event('run/started', null, { pid: 2, host: 'h', planVersion: 1 }),
      event('replan/started', null, { trigger: 'missed-work', progress: 1, mode: 'append', nodeId: 'edit-a' }),
      event('replan/finished', null, { outcome: 'gave-up', reason: 'the limit of 3 replans is reached' }),
    ];

    expect(unplannedWork(events).map((work) => [work.trigger.title, work.why])).toEqual([['b', 'the limit of 3 replans is reached']]);
  });

  it('leaves nothing once every report was amended into a plan version', () => {
    const events = [report('edit-a', 'b'), event('replan/started', null, { trigger: 'missed-work', progress: 1, mode: 'append', nodeId: 'edit-a' }), event('replan/finished', null, { outcome: 'amended', version: 2 })];

    expect(unplannedWork(events)).toEqual([]);
  });
});

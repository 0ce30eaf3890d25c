import type { SessionEvent } from '../../session/event-types.js';
import type { ReplanTrigger } from '../../plan/planner.js';
import { reportedWork } from './reported-work.js';

/** Missed work a node reported (`work/reported`) that no plan version took up: its replan failed, gave up, or never ran. */
export interface UnplannedWork {
  /** The seq of the `work/reported` event. */
  readonly seq: number;
  readonly trigger: Extract<ReplanTrigger, { kind: 'missed-work' }>;
  /** Why it was not planned: the replan's error or reason. */
  readonly why: string;
}

export const UNPLANNED_WORK_EVENT_TYPES = ['run/started', 'work/reported', 'replan/started', 'replan/finished'] as const;

/** Said of a report whose replan never ran (the run stopped first). */
export const NOT_REPLANNED = 'the run stopped before it was replanned';

/**
 * The reports of a run's log that are still unplanned. Replans run one at a time, and each report is
 * replanned once per process of the run (as it is heard, or first thing on resume, oldest first): so
 * each `replan/started` for missed work takes the oldest report of its node not yet tried since the
 * last `run/started`, and the next `replan/finished` says whether a plan version took it up.
 */
export function unplannedWork(events: readonly SessionEvent[]): UnplannedWork[] {
  const open: UnplannedWork[] = [];
  const tried = new Set<UnplannedWork>();
  let current: UnplannedWork | undefined;
  for (const event of events) {
    if (event.type === 'run/started') {
      tried.clear();
    } else if (event.type === 'work/reported') {
      const report = unplannedReport(event);
      if (report !== undefined) open.push(report);
    } else if (event.type === 'replan/started') {
      const { trigger, nodeId } = event.payload;
      current = trigger === 'missed-work' ? open.find((report) => report.trigger.nodeId === nodeId && !tried.has(report)) : undefined;
    } else if (event.type === 'replan/finished' && current !== undefined) {
      const { payload } = event;
      const index = open.indexOf(current);
      current = undefined;
      if (payload.outcome === 'amended') {
        open.splice(index, 1);
      } else {
        open[index] = { ...open[index]!, why: payload.outcome === 'failed' ? `the replan failed: ${payload.error}` : payload.reason };
        tried.add(open[index]);
      }
    }
  }
  return open;
}

/** A node's `work/reported` as work still to plan (`undefined` for a report no node made). */
export function unplannedReport(event: SessionEvent<'work/reported'>): UnplannedWork | undefined {
  const { seq, nodeId, title, files, reason } = reportedWork(event);
  return nodeId === null ? undefined : { seq, trigger: { kind: 'missed-work', nodeId, title, files, reason }, why: NOT_REPLANNED };
}

/** The run's error when it would otherwise have succeeded: which work was never planned, and why. */
export function unplannedWorkError(unplanned: readonly UnplannedWork[]): string {
  const [first] = unplanned;
  if (first === undefined) return '';
  const more = unplanned.length > 1 ? ` (and ${unplanned.length - 1} more report${unplanned.length > 2 ? 's' : ''})` : '';
  return `node ${first.trigger.nodeId} reported missed work that was never planned ("${first.trigger.title}"): ${first.why}${more}`;
}

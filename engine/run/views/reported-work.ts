import type { SessionEvent } from '../../session/event-types.js';

/** Missed work a node reported (`work/reported`), as the run view lists it and replanning takes it up. */
export interface ReportedWork {
  readonly seq: number;
  readonly nodeId: string | null;
  readonly title: string;
  readonly files: readonly string[];
  readonly reason: string;
}

/** The one reading of a `work/reported` event: the run view, the unplanned-work fold and the controller all take it from here. */
export function reportedWork(event: SessionEvent<'work/reported'>): ReportedWork {
  const { title, files, reason } = event.payload;
  return { seq: event.seq, nodeId: event.nodeId, title, files, reason };
}

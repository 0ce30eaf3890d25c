import type { EventDraft, Session } from '../session/index.js';

/** A draft placed on the session's node at its latest turn and step, for `EventLog.appendMany`. */
export function nodeDraft(session: Session, draft: EventDraft): EventDraft {
  return { turn: session.lastTurn, step: session.lastStep, ...draft, nodeId: session.nodeId } as EventDraft;
}

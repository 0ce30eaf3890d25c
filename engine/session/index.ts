export * from './event-types.js';
export * from './event-values.js';
export { runLog } from './run-log.js';
export { DEFAULT_FOLLOW_POLL_MS, EVENTS_NOTIFY_CHANNEL, followRun, type FollowRunOptions, type FollowedStore, type RunFollower } from './follow-run.js';
export { EventLog, readEvents, type AppendEffects, type AppendListener, type AppendOptions, type EventQuery } from './event-log.js';
export { eventFromRow } from './event-row.js';
export { Session, INTERRUPTED_TOOL_RESULT } from './session.js';
export { SURFACE_EVENT_TYPES, applyToSurface, eventToMessage, isSurfaceEvent, type SurfaceEntry, type SurfaceEvent } from './surface.js';

export type { Database, EventsTable, FileSnapshotsTable, MemoriesTable, NodeClaimsTable, NodesTable, PlansTable, RunLeasesTable, RunsTable } from './database.js';
export { openDatabase, describeSqliteError, DEFAULT_BUSY_TIMEOUT_MS, type OpenDatabaseOptions, type SqliteSynchronous, type Store } from './open-database.js';
export { PreparedQuery, type Param } from './prepared-query.js';
export { busyBackoff, isBusyError, BUSY_GIVE_UP_MS, type BusyBackoff } from './busy-backoff.js';
export type { BusyNotice } from './busy-backoff.js';
export { hearMemoryChanges, memoryChangeMark, noteMemoryChange, MEMORIES_NOTIFY_CHANNEL } from './memory-changes.js';

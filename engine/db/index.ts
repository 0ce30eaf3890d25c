export type { Database, EventsTable, FileSnapshotsTable, MemoriesTable, NodeClaimsTable, NodesTable, PlansTable, RunLeasesTable, RunsTable } from './database.js';
export { openDatabase, describeSqliteError, DEFAULT_BUSY_TIMEOUT_MS, type OpenDatabaseOptions, type SqliteSynchronous, type Store } from './open-database.js';
export { PreparedQuery, type Param } from './prepared-query.js';

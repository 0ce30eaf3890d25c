import type { Migration } from 'kysely';
import * as initial from './0001-initial.js';
import * as memorySearch from './0002-memory-search.js';
import * as snapshotContents from './0003-snapshot-contents.js';
import * as eventsWithoutTypeIndex from './0004-events-without-type-index.js';
import * as runLeases from './0005-run-leases.js';
import * as nodeClaims from './0006-node-claims.js';
import * as dashboardEventsNotify from './0007-dashboard-events-notify.js';
import * as eventVersions from './0008-event-versions.js';
import * as evalResults from './0009-eval-results.js';
import * as memorySource from './0010-memory-source.js';
import * as memoriesNotify from './0011-memories-notify.js';
import * as eventsNotifyTypes from './0012-events-notify-types.js';
import * as controlNotify from './0013-control-notify.js';
import * as runSeqs from './0014-run-seqs.js';
import * as nodeScans from './0015-node-scans.js';

/**
 * Every migration, in order. Names sort in the order they must run; a new schema change is a
 * new file here and one line below. Listed in code so no directory is scanned at run time.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001-initial': initial,
  '0002-memory-search': memorySearch,
  '0003-snapshot-contents': snapshotContents,
  '0004-events-without-type-index': eventsWithoutTypeIndex,
  '0005-run-leases': runLeases,
  '0006-node-claims': nodeClaims,
  '0007-dashboard-events-notify': dashboardEventsNotify,
  '0008-event-versions': eventVersions,
  '0009-eval-results': evalResults,
  '0010-memory-source': memorySource,
  '0011-memories-notify': memoriesNotify,
  '0012-events-notify-types': eventsNotifyTypes,
  '0013-control-notify': controlNotify,
  '0014-run-seqs': runSeqs,
  '0015-node-scans': nodeScans,
};

export { dialectOf, type SqlDialectName } from './dialect-of.js';
/** The event types the events trigger notifies `dagent_control` for, as the last migration that set them made it. */
export { CONTROL_TYPES_0013 as CONTROL_TYPES } from './0013-control-notify.js';

import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { hearMemoryChanges, MEMORIES_NOTIFY_CHANNEL } from '../db/memory-changes.js';
import { readEvents, type EventLog } from './event-log.js';
import type { EventType, SessionEvent } from './event-types.js';
import { allControlTypes, CONTROL_EVENT_TYPES, CONTROL_NOTIFY_CHANNEL, EVENTS_NOTIFY_CHANNEL, eventsNotification, hearNotifications } from './postgres-notifications.js';
import { runLog } from './run-log.js';

/** The store a follower reads: the database, its dialect, and its URL (PostgreSQL: the process listens on one connection, `postgres-notifications.ts`). */
export interface FollowedStore {
  readonly db: Kysely<Database>;
  readonly dialect: 'sqlite' | 'postgres';
  readonly url: string;
  /** PostgreSQL: the backends of this process's connections (`Store.ownBackends`); their inserts come through the run's live log. */
  readonly ownBackends?: ReadonlySet<number>;
}

export interface FollowRunOptions {
  /** Deliver events after this seq (0: from the start). */
  readonly afterSeq: number;
  /** New events, in seq order, gap-free, each delivered once. */
  readonly onEvents: (events: readonly SessionEvent[]) => void;
  readonly signal: AbortSignal;
  /** How often SQLite's `data_version` is checked; PostgreSQL's safety poll is ten times slower. */
  readonly pollMs?: number;
  /**
   * Only events of these types (a watch of a run's control events): each read ships only them,
   * still in seq order and each once; the seqs between them are other types'.
   */
  readonly types?: readonly EventType[];
}

export interface RunFollower {
  /** The seq of the last event delivered. */
  readonly lastSeq: number;
  /** Reads whatever is new now (e.g. before drawing a final state). */
  catchUp(): Promise<void>;
  stop(): Promise<void>;
}

/** SQLite `data_version` checks: cheap (no table is read), and well under the 250 ms the screen allows. */
export const DEFAULT_FOLLOW_POLL_MS = 50;
const READ_BATCH = 2_000;
/** PostgreSQL notifies once per insert statement: a read waits this long for the notifications that follow, and takes their events in one query. */
const NOTIFY_COALESCE_MS = 40;

/**
 * Follows a run's log by seq, from this process and from any other. Appends made in this process
 * arrive from the run's one `EventLog` (`runLog`) as they commit; appends from other processes
 * are noticed by SQLite's `PRAGMA data_version` (it changes when another connection commits) or
 * by PostgreSQL `LISTEN` (a trigger notifies per insert statement), then read as `seq > last`.
 * Either way every event is delivered once, in order, with no gap. A notification of this
 * process's own insert is not read for (its events came from the live log); what another process
 * inserted is noted on the run's live log (`KnownWrites`) as it is heard.
 */
export async function followRun(store: FollowedStore, runId: string, options: FollowRunOptions): Promise<RunFollower> {
  const pollMs = options.pollMs ?? DEFAULT_FOLLOW_POLL_MS;
  let lastSeq = options.afterSeq;
  const types = options.types === undefined ? undefined : new Set<string>(options.types);
  let reading: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const deliver = (events: readonly SessionEvent[]): boolean => {
    const fresh = events.filter((event) => event.seq > lastSeq);
    if (fresh.length === 0) return true;
    // A filtered read has gaps by design: it is the store's seq order that makes it whole (a seq commits only after the ones before it).
    if (types === undefined && fresh[0]!.seq !== lastSeq + 1) return false;
    lastSeq = fresh.at(-1)!.seq;
    options.onEvents(fresh);
    return true;
  };

  const readNew = async (): Promise<void> => {
    for (;;) {
      const events = await readEvents(store.db, runId, { fromSeq: lastSeq + 1, limit: READ_BATCH, ...(options.types === undefined ? {} : { types: options.types }) });
      if (stopped) return;
      deliver(events);
      if (events.length < READ_BATCH) return;
    }
  };

  /** One read at a time; a signal during a read asks for one more after it. */
  const pull = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (reading !== undefined) {
      again = true;
      return reading;
    }
    reading = (async () => {
      try {
        do {
          again = false;
          await readNew();
        } while (again && !stopped);
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  };
  const pullQuietly = (): void => void pull().catch(() => undefined);
  const soon = coalesced(pullQuietly, NOTIFY_COALESCE_MS, () => stopped);

  const log = runLog(store.db, runId);
  const unsubscribe = log.onAppend((events) => {
    // Filtered: this process's append says nothing of the other processes' events of those types before it, so the store is read.
    if (types !== undefined) return void (events.some((event) => types.has(event.type)) && pullQuietly());
    if (reading !== undefined || !deliver(events)) pullQuietly();
  });
  // A filtered follower reads only for a notification that names one of its types (or names none).
  const stopListening = await listenForOtherWriters(store, log, options.types, (inserted) => (types === undefined || inserted === undefined || inserted.some((type) => types.has(type))) && soon.request());
  const timer = await pollForCommits(store, pollMs, pullQuietly);

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    soon.cancel();
    unsubscribe();
    options.signal.removeEventListener('abort', onAbort);
    await reading?.catch(() => undefined);
    await stopListening?.();
  };
  const onAbort = (): void => void stop();
  options.signal.addEventListener('abort', onAbort, { once: true });
  await pull();
  return {
    get lastSeq() {
      return lastSeq;
    },
    catchUp: pull,
    stop,
  };
}

/**
 * Polls for commits by other processes: SQLite's `data_version` every `pollMs`, PostgreSQL (which
 * notifies) ten times slower, as a safety net. The timer keeps the process alive while someone
 * follows (an approval waiting for its answer may be all a run has left to do); `stop()` clears it.
 */
async function pollForCommits(store: FollowedStore, pollMs: number, pull: () => void): Promise<NodeJS.Timeout> {
  const watch = store.dialect === 'postgres' ? undefined : await sqliteDataVersion(store.db);
  return setInterval(
    () => {
      if (watch === undefined) return pull();
      watch().then((changed) => changed && pull(), () => undefined);
    },
    store.dialect === 'postgres' ? pollMs * 10 : pollMs,
  );
}

/** `action` once, `delayMs` after the first of a burst of requests (none once `stopped()`). */
function coalesced(action: () => void, delayMs: number, stopped: () => boolean): { request: () => void; cancel: () => void } {
  let soon: NodeJS.Timeout | undefined;
  return {
    request: () => {
      if (soon !== undefined || stopped()) return;
      soon = setTimeout(() => {
        soon = undefined;
        action();
      }, delayMs);
    },
    cancel: () => {
      if (soon !== undefined) clearTimeout(soon);
    },
  };
}

/** A check that says whether another connection committed since the last check. */
async function sqliteDataVersion(db: Kysely<Database>): Promise<() => Promise<boolean>> {
  const read = async (): Promise<number> => {
    const result = await sql<{ data_version: number }>`PRAGMA data_version`.execute(db);
    return Number(result.rows[0]?.data_version ?? 0);
  };
  let version = await read();
  return async () => {
    const next = await read();
    const changed = next !== version;
    version = next;
    return changed;
  };
}

/**
 * PostgreSQL: hears the run's inserts. Another process's are noted on the run's live log and read
 * for (`request`); this process's own are not, their events came from the live log. A follower of
 * control types only hears `dagent_control` (a worker's watch: not woken by every message of the
 * run); any other hears every insert.
 */
async function listenForOtherWriters(store: FollowedStore, log: EventLog, types: readonly EventType[] | undefined, request: (types: readonly string[] | undefined) => void): Promise<(() => Promise<void>) | undefined> {
  if (store.dialect !== 'postgres') return undefined;
  const onInsert = (sender: number, inserted: readonly string[] | undefined): void => {
    if (store.ownBackends?.has(sender) === true) return;
    log.writes.noteOtherWrites(inserted);
    request(inserted);
  };
  const controlOnly = types !== undefined && allControlTypes(types);
  let memories: ReturnType<typeof hearMemoryChanges> | undefined;
  return listenPostgres(store.url, log.runId, controlOnly, {
    onInsert,
    // The same connection hears the store's memory changes: a project with none is not searched at every step.
    onMemoriesChanged: () => memories?.changed(),
    watch: () => {
      const unwatch = log.writes.watchOthers(controlOnly ? CONTROL_EVENT_TYPES : 'all');
      memories = hearMemoryChanges(store.db);
      return () => {
        unwatch();
        memories?.stop();
      };
    },
  });
}

interface PostgresListeners {
  /** This run's events were inserted, by the backend of this process id. */
  readonly onInsert: (sender: number, types: readonly string[] | undefined) => void;
  /** A statement changed the store's memories. */
  readonly onMemoriesChanged: () => void;
  /** Called once the listening starts; its returned function when it ends (stopped, or the connection dropped). */
  readonly watch: () => () => void;
}

/** Hears `dagent_events` (or, `controlOnly`, `dagent_control`) of this run and `dagent_memories` on the process's shared listening connection. */
async function listenPostgres(url: string, runId: string, controlOnly: boolean, { onInsert, onMemoriesChanged, watch }: PostgresListeners): Promise<() => Promise<void>> {
  const channel = controlOnly ? CONTROL_NOTIFY_CHANNEL : EVENTS_NOTIFY_CHANNEL;
  let unwatch: (() => void) | undefined;
  const end = (): void => {
    unwatch?.();
    unwatch = undefined;
  };
  const stopHearing = await hearNotifications(url, {
    onNotification: (message) => {
      if (message.channel === channel) {
        const inserted = eventsNotification(message.payload);
        if (inserted.runId === runId) onInsert(message.processId, inserted.types);
      }
      if (message.channel === MEMORIES_NOTIFY_CHANNEL) onMemoriesChanged();
    },
    // A dropped listening connection only slows the follower to its safety poll; nothing is heard any more.
    onLost: end,
  }, [channel, MEMORIES_NOTIFY_CHANNEL]);
  unwatch = watch();
  return async () => {
    end();
    await stopHearing();
  };
}

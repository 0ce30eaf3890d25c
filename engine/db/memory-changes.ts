import type { Kysely } from 'kysely';
import type { Database } from './database.js';

/** The channel a PostgreSQL store notifies when a statement adds, changes or removes memories (migration 0011). */
export const MEMORIES_NOTIFY_CHANNEL = 'dagent_memories';

/**
 * PostgreSQL: whether this process hears the memory changes of a store (a follower's listening
 * connection does), and a mark that moves with each change heard and whenever the hearing starts
 * or stops. What a search saw at one mark still holds while the mark has not moved.
 */
interface MemoryChangeWatch {
  listeners: number;
  mark: number;
}

const watches = new WeakMap<Kysely<Database>, MemoryChangeWatch>();

/** Starts hearing the memory changes of the store behind `db`; `changed` for each notification, `stop` when the hearing ends. */
export function hearMemoryChanges(db: Kysely<Database>): { changed(): void; stop(): void } {
  let watch = watches.get(db);
  if (watch === undefined) {
    watch = { listeners: 0, mark: 0 };
    watches.set(db, watch);
  }
  const heard = watch;
  heard.listeners += 1;
  heard.mark += 1;
  let stopped = false;
  return {
    changed: () => void (heard.mark += 1),
    stop() {
      if (stopped) return;
      stopped = true;
      heard.listeners -= 1;
      heard.mark += 1;
    },
  };
}

/** The store's memory-change mark while this process hears its changes; undefined when it does not. */
export function memoryChangeMark(db: Kysely<Database>): number | undefined {
  const watch = watches.get(db);
  return watch === undefined || watch.listeners === 0 ? undefined : watch.mark;
}

/** A change this process made to the store's memories: what was seen before it no longer holds (its notification may come later). */
export function noteMemoryChange(db: Kysely<Database>): void {
  const watch = watches.get(db);
  if (watch !== undefined) watch.mark += 1;
}

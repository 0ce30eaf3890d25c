import type { Client, Notification } from 'pg';
import { MEMORIES_NOTIFY_CHANNEL } from '../db/memory-changes.js';
import { OUTCOMES_NOTIFY_CHANNEL } from './one-statement-append.js';

/**
 * The channel a PostgreSQL store notifies per statement that inserts a run's events; the payload
 * is the run id, then a space and the types inserted, comma-separated (migration 0012).
 */
export const EVENTS_NOTIFY_CHANNEL = 'dagent_events';

/** A `dagent_events` payload: the run, and the event types the statement inserted (undefined: not said, any type). */
export function eventsNotification(payload: string | undefined): { readonly runId: string; readonly types?: readonly string[] } {
  const text = payload ?? '';
  const space = text.indexOf(' ');
  return space < 0 ? { runId: text } : { runId: text.slice(0, space), types: text.slice(space + 1).split(',') };
}

/** What the listening connection hears: a run's events, a worker's outcome (its run's scheduler reads it), the memories. */
const CHANNELS = [EVENTS_NOTIFY_CHANNEL, OUTCOMES_NOTIFY_CHANNEL, MEMORIES_NOTIFY_CHANNEL] as const;

/** One hearer of a store's notifications. */
export interface NotificationHearer {
  /** `message` came on one of the channels (`message.channel`). */
  readonly onNotification: (message: Notification) => void;
  /** The connection dropped: nothing more will be heard through this hearing. */
  readonly onLost: () => void;
}

/**
 * A process's one listening connection to a PostgreSQL store (`LISTEN dagent_events;
 * LISTEN dagent_outcomes; LISTEN dagent_memories`), shared by everyone in the process who hears
 * it: each run's followers, the dashboard's, a worker's watch of every run it works on, a
 * dispatching scheduler's wait for its workers' outcomes. Opening a connection costs a server
 * process and 10–25 ms on a small host; a run's control follower and a worker's first node of each
 * run paid that on their critical path. It opens with its first hearer and closes with its last
 * (`holdListening` keeps it for a long-lived process); one that drops tells its hearers and is
 * opened afresh for the next.
 */
class SharedListening {
  readonly #url: string;
  readonly #hearers = new Set<NotificationHearer>();
  readonly #client: Promise<Client>;
  #closed = false;

  constructor(url: string, onGone: () => void) {
    this.#url = url;
    this.#client = this.#open(onGone);
  }

  async #open(onGone: () => void): Promise<Client> {
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: this.#url });
    const lost = (): void => {
      onGone();
      for (const hearer of [...this.#hearers]) hearer.onLost();
      this.#hearers.clear();
    };
    client.on('error', lost);
    client.on('end', () => {
      if (!this.#closed) lost();
    });
    client.on('notification', (message) => {
      for (const hearer of [...this.#hearers]) hearer.onNotification(message);
    });
    try {
      await client.connect();
      await client.query(CHANNELS.map((channel) => `LISTEN ${channel}`).join('; '));
    } catch (error) {
      onGone();
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /** Hears from now on (once the connection listens); the returned function stops. */
  async hear(hearer: NotificationHearer): Promise<() => Promise<void>> {
    this.#hearers.add(hearer);
    try {
      await this.#client;
    } catch (error) {
      this.#hearers.delete(hearer);
      throw error;
    }
    return async () => {
      this.#hearers.delete(hearer);
      if (this.#hearers.size > 0 || this.#closed) return;
      this.#closed = true;
      listenings.delete(this.#url);
      await (await this.#client).end().catch(() => undefined);
    };
  }
}

const listenings = new Map<string, SharedListening>();

/**
 * Hears the notifications of the PostgreSQL store at `url` on the process's shared listening
 * connection, opening it if need be; resolves once it listens, rejects if it cannot be opened.
 */
export function hearNotifications(url: string, hearer: NotificationHearer): Promise<() => Promise<void>> {
  let listening = listenings.get(url);
  if (listening === undefined) {
    const opened: SharedListening = new SharedListening(url, () => {
      if (listenings.get(url) === opened) listenings.delete(url);
    });
    listening = opened;
    listenings.set(url, listening);
  }
  return listening.hear(hearer);
}

/**
 * Opens the shared listening connection now and keeps it until the returned function is called: a
 * worker holds it from its start, so each run it takes a node of is heard without opening one.
 */
export function holdListening(url: string): Promise<() => Promise<void>> {
  return hearNotifications(url, { onNotification: () => undefined, onLost: () => undefined });
}

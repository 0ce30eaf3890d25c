import type { Client, Notification } from 'pg';
import type { MEMORIES_NOTIFY_CHANNEL } from '../db/memory-changes.js';
import { CONTROL_TYPES } from '../../migrations/index.js';
import type { OUTCOMES_NOTIFY_CHANNEL } from './one-statement-append.js';

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

/**
 * The channel a PostgreSQL store notifies when a statement inserts events of the types another
 * process acts on (`CONTROL_EVENT_TYPES`; migration 0013), named as on `dagent_events` with those
 * types only. A process that follows only those (a worker) listens here: every message of every
 * node of a run would otherwise wake it, to be parsed and dropped.
 */
export const CONTROL_NOTIFY_CHANNEL = 'dagent_control';

/**
 * The types `dagent_control` is notified for: a run dispatched, stopped or ended, a node told
 * something, paused or resumed, an approval answered, a budget set or reached, missed work
 * reported. The list is migration 0013's, which the trigger was made with: a change of it is a
 * migration of its own.
 */
export const CONTROL_EVENT_TYPES: ReadonlySet<string> = new Set(CONTROL_TYPES);

/** Whether inserts of `types` are all notified on `dagent_control` too (a follower of them need not hear every insert). */
export function allControlTypes(types: readonly string[]): boolean {
  return types.every((type) => CONTROL_EVENT_TYPES.has(type));
}

/** The channels a process's listening connection may listen on. */
export type NotifyChannel = typeof EVENTS_NOTIFY_CHANNEL | typeof CONTROL_NOTIFY_CHANNEL | typeof OUTCOMES_NOTIFY_CHANNEL | typeof MEMORIES_NOTIFY_CHANNEL;

/** One hearer of a store's notifications. */
export interface NotificationHearer {
  /** `message` came on one of the channels listened to (`message.channel`: not only the hearer's own). */
  readonly onNotification: (message: Notification) => void;
  /** The connection dropped: nothing more will be heard through this hearing. */
  readonly onLost: () => void;
}

/**
 * A process's one listening connection to a PostgreSQL store, shared by everyone in the process
 * who hears it: each run's followers, the dashboard's, a worker's watch of every run it works on,
 * a dispatching scheduler's wait for its workers' outcomes. Opening a connection costs a server
 * process and 10–25 ms on a small host; a run's control follower and a worker's first node of each
 * run paid that on their critical path. It opens with its first hearer and closes with its last
 * (`holdListening` keeps it for a long-lived process); one that drops tells its hearers and is
 * opened afresh for the next. It listens on the channels its hearers name, each while one of
 * them needs it: a worker's connection is not woken by every insert of the runs it works on.
 */
class SharedListening {
  readonly #url: string;
  readonly #hearers = new Map<NotificationHearer, readonly NotifyChannel[]>();
  readonly #client: Promise<Client>;
  /** LISTEN and UNLISTEN statements go one after the other, in the order they were asked for. */
  #changing: Promise<void> = Promise.resolve();
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
      for (const hearer of [...this.#hearers.keys()]) hearer.onLost();
      this.#hearers.clear();
    };
    client.on('error', lost);
    client.on('end', () => {
      if (!this.#closed) lost();
    });
    client.on('notification', (message) => {
      for (const hearer of [...this.#hearers.keys()]) hearer.onNotification(message);
    });
    try {
      await client.connect();
    } catch (error) {
      onGone();
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  /** Hears `channels` from now on (once the connection listens on them); the returned function stops. */
  async hear(hearer: NotificationHearer, channels: readonly NotifyChannel[]): Promise<() => Promise<void>> {
    const fresh = channels.filter((channel) => !this.#listensOn(channel));
    this.#hearers.set(hearer, channels);
    try {
      await this.#change('LISTEN', fresh);
    } catch (error) {
      await this.#stop(hearer);
      throw error;
    }
    return () => this.#stop(hearer);
  }

  async #stop(hearer: NotificationHearer): Promise<void> {
    const channels = this.#hearers.get(hearer);
    if (channels === undefined) return;
    this.#hearers.delete(hearer);
    const unneeded = channels.filter((channel) => !this.#listensOn(channel));
    if (this.#hearers.size > 0 || this.#closed) {
      // A channel nobody needs any more stops waking this process; a failure only leaves it heard.
      if (!this.#closed) await this.#change('UNLISTEN', unneeded).catch(() => undefined);
      return;
    }
    this.#closed = true;
    if (listenings.get(this.#url) === this) listenings.delete(this.#url);
    await (await this.#client.catch(() => undefined))?.end().catch(() => undefined);
  }

  /** Whether a hearer needs `channel` (the connection listens on it, or is about to). */
  #listensOn(channel: NotifyChannel): boolean {
    return [...this.#hearers.values()].some((channels) => channels.includes(channel));
  }

  /** One statement for all of `channels`, after the ones asked for before it. */
  #change(verb: 'LISTEN' | 'UNLISTEN', channels: readonly NotifyChannel[]): Promise<void> {
    const changed = this.#changing.then(async () => {
      const client = await this.#client;
      if (channels.length > 0) await client.query(channels.map((channel) => `${verb} ${channel}`).join('; '));
    });
    this.#changing = changed.catch(() => undefined);
    return changed;
  }
}

const listenings = new Map<string, SharedListening>();

/**
 * Hears the notifications of the PostgreSQL store at `url` on `channels`, on the process's shared
 * listening connection, opening it if need be; resolves once it listens, rejects if it cannot be
 * opened. The hearer gets what the connection hears on every channel it listens on (other hearers'
 * too): it looks at `message.channel`.
 */
export function hearNotifications(url: string, hearer: NotificationHearer, channels: readonly NotifyChannel[]): Promise<() => Promise<void>> {
  let listening = listenings.get(url);
  if (listening === undefined) {
    const opened: SharedListening = new SharedListening(url, () => {
      if (listenings.get(url) === opened) listenings.delete(url);
    });
    listening = opened;
    listenings.set(url, listening);
  }
  return listening.hear(hearer, channels);
}

/**
 * Opens the shared listening connection now and keeps it until the returned function is called: a
 * worker holds it from its start, so each run it takes a node of is heard without opening one.
 */
export function holdListening(url: string): Promise<() => Promise<void>> {
  return hearNotifications(url, { onNotification: () => undefined, onLost: () => undefined }, [CONTROL_NOTIFY_CHANNEL]);
}

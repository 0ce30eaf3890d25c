import { EVENTS_NOTIFY_CHANNEL } from '../session/follow-run.js';

/**
 * `LISTEN dagent_events` on a connection of its own (PostgreSQL notifies once per statement that
 * inserts a run's events): `onNotify` runs as each of the run's appends commits, from any process.
 * A dropped connection only leaves the listener's owner to its poll. Resolves to its stop.
 */
export async function listenForRunEvents(url: string, runId: string, onNotify: () => void): Promise<() => Promise<void>> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  client.on('notification', (message) => {
    if (message.channel === EVENTS_NOTIFY_CHANNEL && message.payload === runId) onNotify();
  });
  await client.query(`LISTEN ${EVENTS_NOTIFY_CHANNEL}`);
  return async () => {
    await client.end().catch(() => undefined);
  };
}

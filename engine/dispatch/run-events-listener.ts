/**
 * `LISTEN` on `channel` on a connection of its own: `onNotify` runs as each notification naming
 * the run arrives, from any process. A dropped connection only leaves the listener's owner to its
 * poll. Resolves to its stop.
 */
export async function listenForRunNotifications(url: string, channel: string, runId: string, onNotify: () => void): Promise<() => Promise<void>> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  client.on('notification', (message) => {
    if (message.channel === channel && message.payload === runId) onNotify();
  });
  await client.query(`LISTEN ${channel}`);
  return async () => {
    await client.end().catch(() => undefined);
  };
}

import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { contractStores } from '../../helpers/contract-stores.js';

const postgres = contractStores().find((factory) => factory.name === 'postgres')!;

/** The store's connections to its database, as PostgreSQL counts them (the counting one left out). */
async function connectionsTo(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    return Number(rows[0]!.count);
  } finally {
    await client.end();
  }
}

describe.skipIf(!postgres.available)("a worker's PostgreSQL store", () => {
  it('opens the connections it is asked to keep at once, and still has them after idling past the pool’s timeout', async () => {
    const { store, cleanup } = await postgres.open();
    try {
      await store.keepConnections(6);
      expect(await connectionsTo(store.url)).toBeGreaterThanOrEqual(6);

      // pg's pool closes a connection idle for 10 s, unless it is one of those kept.
      await sleep(11_000);
      expect(await connectionsTo(store.url)).toBeGreaterThanOrEqual(6);
    } finally {
      await cleanup();
    }
  }, 30_000);

  it('has each kept connection look at the tables a run works in, so a stage does not pay for that', async () => {
    const { store, cleanup } = await postgres.open();
    const client = new pg.Client({ connectionString: store.url });
    await client.connect();
    try {
      await store.keepConnections(4);

      // Each server process shows the last statement it ran.
      const { rows } = await client.query<{ query: string }>("SELECT query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle'");
      const primed = rows.filter((row) => ['events', 'nodes', 'node_claims', 'file_snapshots', 'memories'].every((table) => row.query.includes(`from "${table}"`)));
      expect(primed.length).toBeGreaterThanOrEqual(4);
    } finally {
      await client.end();
      await cleanup();
    }
  });
});


import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../engine/index.js';
import { WalCheckpointer } from '../../../engine/db/wal-checkpointer.js';
import { tempDir } from '../../helpers/temp-store.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A WAL database whose own connection never checkpoints, as the engine opens it. */
function walDatabase(): { path: string; sqlite: BetterSqlite3.Database } {
  const { dir, cleanup } = tempDir('dagent-wal-');
  const path = join(dir, 'dagent.db');
  const sqlite = new BetterSqlite3(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('wal_autocheckpoint = 0');
  sqlite.exec('create table log (id integer primary key, body text not null)');
  cleanups.push(cleanup, () => sqlite.close());
  return { path, sqlite };
}

function writeRows(sqlite: BetterSqlite3.Database, count: number): void {
  const insert = sqlite.prepare('insert into log (body) values (?)');
  for (let index = 0; index < count; index += 1) insert.run('x'.repeat(2_000));
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('WalCheckpointer', () => {
  it('moves a grown WAL into the database from a worker, while the writer goes on', async () => {
    const { path, sqlite } = walDatabase();
    const checkpointer = new WalCheckpointer(path, { synchronous: 'NORMAL', busyTimeoutMs: 1_000, startBytes: 256 * 1024, intervalMs: 10, onUnavailable: (error) => { throw error; } });
    cleanups.push(() => checkpointer.close());
    const databaseBefore = statSync(path).size;
    writeRows(sqlite, 300); // ≈ 600 KB of pages, all in the WAL
    expect(statSync(path).size).toBe(databaseBefore);
    await until(() => checkpointer.state.checkpoints > 0);
    expect(checkpointer.state.started).toBe(true);
    expect(statSync(path).size).toBeGreaterThan(databaseBefore + 500_000);
    writeRows(sqlite, 10); // the writer was never blocked, and still is not
    expect(sqlite.prepare('select count(*) as n from log').get()).toEqual({ n: 310 });
  });

  it('never starts a worker for a WAL that stays small', async () => {
    const { path, sqlite } = walDatabase();
    const checkpointer = new WalCheckpointer(path, { synchronous: 'NORMAL', busyTimeoutMs: 1_000, startBytes: 4 * 1024 * 1024, intervalMs: 10, onUnavailable: () => undefined });
    writeRows(sqlite, 20);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(checkpointer.state).toEqual({ started: false, checkpoints: 0 });
    await checkpointer.close();
  });

  it('hands back to SQLite when its worker cannot open the database', async () => {
    const { dir, cleanup } = tempDir('dagent-wal-');
    cleanups.push(cleanup);
    const path = join(dir, 'gone.db');
    writeFileSync(`${path}-wal`, Buffer.alloc(64 * 1024)); // a WAL with no database beside it
    let unavailable: unknown;
    const checkpointer = new WalCheckpointer(path, { synchronous: 'NORMAL', busyTimeoutMs: 1_000, startBytes: 1_024, intervalMs: 10, onUnavailable: (error) => (unavailable = error) });
    cleanups.push(() => checkpointer.close());
    await until(() => unavailable !== undefined);
    expect(String(unavailable)).toMatch(/does not exist|unable to open/i);
    expect(checkpointer.state.failure).toMatch(/does not exist|unable to open/i);
  });
});

describe('openDatabase and checkpoints', () => {
  it('turns SQLite automatic checkpoints off for a file and leaves them to the checkpointer', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const store = await openDatabase(join(dir, 'dagent.db'));
    cleanups.push(() => store.close());
    expect(store.checkpointer?.state).toEqual({ started: false, checkpoints: 0 });
    const memory = await openDatabase(':memory:');
    cleanups.push(() => memory.close());
    expect(memory.checkpointer).toBeUndefined();
  });
});

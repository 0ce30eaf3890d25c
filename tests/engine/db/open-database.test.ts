import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseError, EventLog, createRun, openDatabase } from '../../../engine/index.js';
import { SchemaTooNewError } from '../../../engine/errors.js';
import { BUILT_ENGINE } from '../../helpers/crash-process.js';
import { openTempStore, tempDir } from '../../helpers/temp-store.js';


/** `openDatabase(path)` in a process of its own: `opened`, or the error it said. */
function openInChild(path: string): Promise<string> {
  const script = `const { openDatabase } = await import(process.env.ENGINE); const store = await openDatabase(process.env.DB); await store.close(); process.stdout.write('opened');`;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ENGINE: BUILT_ENGINE, DB: path }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('close', () => resolve(out.trim()));
  });
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('openDatabase', () => {
  it('creates the tables and runs migrations on open, in WAL mode', async () => {
    const { store, path, cleanup } = await openTempStore();
    cleanups.push(cleanup);
    const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table' order by name`.execute(store.db);
    expect(tables.rows.map((row) => row.name)).toEqual(
      expect.arrayContaining(['runs', 'plans', 'nodes', 'events', 'file_snapshots', 'memories']),
    );
    const raw = new BetterSqlite3(path, { readonly: true });
    cleanups.push(() => raw.close());
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('opens an existing database again without re-running migrations', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const path = join(dir, 'dagent.db');
    const first = await openDatabase(path);
    const run = await createRun(first.db, { task: 'keep me', workspace: dir, mode: 'plan' });
    await first.close();
    const second = await openDatabase(path);
    cleanups.push(() => second.close());
    const row = await second.db.selectFrom('runs').select('task').where('id', '=', run.id).executeTakeFirstOrThrow();
    expect(row.task).toBe('keep me');
  });

  it('opens a new database from several processes at once: one migrates, the others find it done', async () => {
    // As `dagent plan` creating a project's database while `dagent status` looks at it.
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    for (let round = 0; round < 3; round += 1) {
      const path = join(dir, `dagent-${round}.db`);

      const opened = await Promise.all(Array.from({ length: 6 }, () => openInChild(path)));

      expect(opened).toEqual(Array.from({ length: 6 }, () => 'opened'));
      const store = await openDatabase(path);
      cleanups.push(() => store.close());
      const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(store.db);
      expect(new Set(applied.rows.map((row) => row.name)).size).toBe(applied.rows.length);
    }
  });

  it('refuses UPDATE and DELETE on events at the database level', async () => {
    const { store, cleanup } = await openTempStore();
    cleanups.push(cleanup);
    const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
    const log = new EventLog(store.db, run.id);
    await log.append({ type: 'user/message', payload: { content: 'original', source: 'user' } });

    await expect(store.db.updateTable('events').set({ payload: '{}' }).where('run_id', '=', run.id).execute()).rejects.toThrow(/append-only/);
    await expect(store.db.deleteFrom('events').where('run_id', '=', run.id).execute()).rejects.toThrow(/append-only/);

    const events = await log.read();
    expect(events.map((event) => event.type)).toEqual(['run/created', 'user/message']);
    expect(events[1]?.payload).toMatchObject({ content: 'original' });
  });

  it('says clearly when the file is not a database', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const path = join(dir, 'notes.db');
    writeFileSync(path, 'these are my notes, not a database '.repeat(200));
    const failure = await openDatabase(path).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DatabaseError);
    expect((failure as Error).message).toMatch(/not a SQLite database or is corrupt/);
  });

  it('says clearly when another process holds the write lock', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const path = join(dir, 'dagent.db');
    await (await openDatabase(path)).close();
    const holder = new BetterSqlite3(path);
    holder.exec('BEGIN EXCLUSIVE');
    cleanups.push(() => {
      holder.exec('ROLLBACK');
      holder.close();
    });
    const failure = await openDatabase(path, { busyTimeoutMs: 50, busyBackoff: { giveUpAfterMs: 0 } }).then(async (store) => {
      try {
        await createRun(store.db, { task: 't', workspace: dir, mode: 'plan' });
        return undefined;
      } catch (error) {
        return error;
      } finally {
        await store.close();
      }
    }, (error: unknown) => error);
    expect(failure).toBeDefined();
    expect(String((failure as Error).message)).toMatch(/locked/);
  });

  it('refuses a database written by a newer schema', async () => {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const path = join(dir, 'dagent.db');
    await (await openDatabase(path)).close();
    const raw = new BetterSqlite3(path);
    raw.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('0999-from-the-future', new Date().toISOString());
    raw.close();
    const failure = await openDatabase(path).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SchemaTooNewError);
    expect((failure as Error).message).toMatch(/newer dagent.*0999-from-the-future/);
  });
});

import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, createRun, describeSqliteError, openDatabase, type BusyNotice, type Store } from '../../../engine/index.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * The store under pressure: another program holding the database locked past the busy timeout
 * does not kill a live run (dagent waits with backoff and says so), and a full disk fails one
 * append with "the disk is full", loses nothing already written, and the log goes on once there
 * is room again.
 */

let temp: { dir: string; cleanup: () => void };
let store: Store | undefined;

beforeEach(() => {
  temp = tempDir('dagent-pressure-');
});
afterEach(async () => {
  await store?.close();
  store = undefined;
  temp.cleanup();
});

describe('a database locked by another program', () => {
  it('is waited out with backoff, and the user is told, instead of failing the append', async () => {
    const path = `${temp.dir}/dagent.db`;
    const notices: BusyNotice[] = [];
    // The other program lets go once the user has been told the append waits (not after a guessed
    // 600 ms, which a loaded machine can spend before the append has even started waiting).
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const onBusy = (notice: BusyNotice): void => {
      notices.push(notice);
      if (notice.state === 'waiting') release();
    };
    store = await openDatabase(path, { busyTimeoutMs: 50, busyBackoff: { delayMs: () => 50, noticeAfterMs: 100 }, onBusy });
    const run = await createRun(store.db, { task: 'live run', workspace: temp.dir, mode: 'react' });
    const log = new EventLog(store.db, run.id);

    // Another program takes the write lock and keeps it for well over the busy timeout.
    const other = new BetterSqlite3(path);
    other.exec('BEGIN IMMEDIATE');
    void released.then(() => {
      other.exec('COMMIT');
      other.close();
    });

    const event = await log.append({ type: 'user/message', payload: { source: 'user', content: 'still here' } });
    await released;

    expect(event.seq).toBe(2);
    expect(notices.map((notice) => notice.state)).toEqual(['waiting', 'resumed']);
    expect(notices[1]!.waitedMs).toBeGreaterThan(0);
    expect((await log.read()).map((stored) => stored.type)).toEqual(['run/created', 'user/message']);
  });

  it('is reported as one clear line when it is held past the give-up time', async () => {
    const path = `${temp.dir}/dagent.db`;
    store = await openDatabase(path, { busyTimeoutMs: 20, busyBackoff: { delayMs: () => 20, giveUpAfterMs: 100 } });
    const run = await createRun(store.db, { task: 'live run', workspace: temp.dir, mode: 'react' });
    const other = new BetterSqlite3(path);
    other.exec('BEGIN IMMEDIATE');

    const failed = await new EventLog(store.db, run.id).append({ type: 'user/message', payload: { source: 'user', content: 'x' } }).catch((error: unknown) => error);
    other.exec('ROLLBACK');
    other.close();

    expect(describeSqliteError(failed, path).message).toBe(`database ${path} is locked by another process; try again when it finishes`);
  });

  it('is waited out when the store is opened while another process sets the file up (a status beside a plan creating the store)', async () => {
    const path = `${temp.dir}/dagent.db`;
    // The other process has created the file and holds it locked, not yet in WAL mode.
    const other = new BetterSqlite3(path);
    other.exec('BEGIN EXCLUSIVE');
    const notices: BusyNotice[] = [];
    const onBusy = (notice: BusyNotice): void => {
      notices.push(notice);
      if (notice.state === 'waiting') {
        other.exec('COMMIT');
        other.close();
      }
    };

    store = await openDatabase(path, { busyTimeoutMs: 20, busyBackoff: { delayMs: () => 20, noticeAfterMs: 100 }, onBusy });
    const run = await createRun(store.db, { task: 'opened after the wait', workspace: temp.dir, mode: 'react' });

    expect(notices.map((notice) => notice.state)).toEqual(['waiting', 'resumed']);
    expect((await new EventLog(store.db, run.id).read()).map((stored) => stored.type)).toEqual(['run/created']);
  });

  it('held past the give-up time while the store is opened, is one clear line', async () => {
    const path = `${temp.dir}/dagent.db`;
    const other = new BetterSqlite3(path);
    other.exec('BEGIN EXCLUSIVE');

    const failed = await openDatabase(path, { busyTimeoutMs: 20, busyBackoff: { delayMs: () => 20, giveUpAfterMs: 100 } }).catch((error: unknown) => error);
    other.exec('ROLLBACK');
    other.close();

    expect((failed as Error).message).toBe(`database ${path} is locked by another process; try again when it finishes`);
  });
});

describe('two processes on one database file', () => {
  it('a transaction that read before the other process wrote still commits: it waits its turn instead of failing with SQLITE_BUSY_SNAPSHOT', async () => {
    const path = `${temp.dir}/dagent.db`;
    store = await openDatabase(path);
    let otherWaits!: () => void;
    const otherWaiting = new Promise<void>((resolve) => (otherWaits = resolve));
    const other = await openDatabase(path, { busyBackoff: { noticeAfterMs: 0 }, onBusy: (notice) => notice.state === 'waiting' && otherWaits() });
    try {
      const run = await createRun(store.db, { task: 'first', workspace: temp.dir, mode: 'react' });
      let otherWrote: Promise<unknown> = Promise.resolve();
      await store.db.transaction().execute(async (transaction) => {
        const { task } = await transaction.selectFrom('runs').select('task').where('id', '=', run.id).executeTakeFirstOrThrow();
        // The other process writes between this transaction's read and its write.
        otherWrote = createRun(other.db, { task: 'the other one', workspace: temp.dir, mode: 'react' });
        await Promise.race([otherWrote, otherWaiting]);
        await transaction.updateTable('runs').set({ task: `${task}, updated` }).where('id', '=', run.id).execute();
      });
      await otherWrote;

      const tasks = (await store.db.selectFrom('runs').select('task').orderBy('task').execute()).map((row) => row.task);
      expect(tasks).toEqual(['first, updated', 'the other one']);
    } finally {
      await other.close();
    }
  });

  it('a lock another process holds for seconds is waited out with the event loop live: timers keep firing, and both finish', async () => {
    const path = `${temp.dir}/dagent.db`;
    store = await openDatabase(path);
    const run = await createRun(store.db, { task: 'live run', workspace: temp.dir, mode: 'react' });
    const log = new EventLog(store.db, run.id);
    const holder = spawn(process.execPath, ['-e', HOLD_THE_LOCK, createRequire(import.meta.url).resolve('better-sqlite3'), path, String(HOLD_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => holder.on('exit', resolve));
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));

    // While the other process holds the write lock, a timer ticks and the run appends.
    let last = Date.now();
    let longestGapMs = 0;
    const ticker = setInterval(() => {
      longestGapMs = Math.max(longestGapMs, Date.now() - last);
      last = Date.now();
    }, 10);
    try {
      await Promise.all([
        log.append({ type: 'user/message', payload: { source: 'user', content: 'one' } }),
        log.appendMany([{ type: 'user/message', payload: { source: 'user', content: 'two' } }, { type: 'user/message', payload: { source: 'user', content: 'three' } }]),
      ]);
    } finally {
      clearInterval(ticker);
      longestGapMs = Math.max(longestGapMs, Date.now() - last);
    }

    expect(await exited).toBe(0);
    expect((await log.read()).map((event) => event.type)).toEqual(['run/created', 'user/message', 'user/message', 'user/message']);
    // A busy timeout of seconds would have frozen the loop for the whole hold.
    expect(longestGapMs).toBeLessThan(HOLD_MS / 2);
  });
});

/** Another program: takes the write lock, says so on stdout, keeps it for argv[3] ms, commits. */
const HOLD_THE_LOCK = `
const Database = require(process.argv[1]);
const db = new Database(process.argv[2]);
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\\n');
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.argv[3]));
db.exec('COMMIT');
db.close();
`;
const HOLD_MS = 3_000;

describe('a full disk', () => {
  it('fails the append with "the disk is full", keeps everything before it, and the log goes on when there is room', async () => {
    const path = `${temp.dir}/dagent.db`;
    store = await openDatabase(path);
    const run = await createRun(store.db, { task: 'fill the disk', workspace: temp.dir, mode: 'react' });
    const log = new EventLog(store.db, run.id);
    // SQLite reports SQLITE_FULL once the file would grow past max_page_count: a disk that is full.
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(store.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count + 8}`).execute(store.db);

    const big = 'x'.repeat(4_000);
    let appended = 0;
    let failure: unknown;
    try {
      for (;;) {
        // A node transition: several events and the projection in one transaction.
        await log.appendMany([0, 1, 2].map(() => ({ type: 'user/message', payload: { source: 'user', content: big } }) as const));
        appended += 3;
      }
    } catch (error) {
      failure = error;
    }

    expect((failure as { code?: string }).code).toBe('SQLITE_FULL');
    expect(describeSqliteError(failure, path).message).toBe(`database ${path}: the disk is full; nothing was written`);
    expect(await log.read()).toHaveLength(1 + appended);

    await sql.raw('pragma max_page_count = 1073741823').execute(store.db);
    await log.append({ type: 'user/message', payload: { source: 'user', content: 'room again' } });
    expect(await log.read()).toHaveLength(2 + appended);
  });
});

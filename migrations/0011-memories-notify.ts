import { sql, type Kysely } from 'kysely';
import { dialectOf } from './dialect-of.js';

/**
 * PostgreSQL only: every statement that adds, changes or removes memories notifies
 * `dagent_memories` at commit, so a process that listens knows when a project with no memories
 * may have some (SQLite processes ask `PRAGMA data_version` instead and need nothing here).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`
    create or replace function dagent_memories_notify() returns trigger language plpgsql as $$
    begin
      perform pg_notify('dagent_memories', '');
      return null;
    end $$`.execute(db);
  await sql`
    create trigger memories_notify after insert or update or delete on memories
    for each statement execute function dagent_memories_notify()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`drop trigger if exists memories_notify on memories`.execute(db);
  await sql`drop function if exists dagent_memories_notify()`.execute(db);
}

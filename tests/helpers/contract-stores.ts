import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type OpenDatabaseOptions, type Store } from '../../engine/index.js';
import { openTempStore } from './temp-store.js';

export interface StoreFactory {
  readonly name: 'sqlite' | 'postgres';
  /** Undefined when this backend is not available on the machine. */
  readonly available: boolean;
  /** `options`: how the store is opened (its secrets, …), reopened the same way. */
  open(options?: OpenDatabaseOptions): Promise<{ store: Store; reopen: () => Promise<Store>; cleanup: () => Promise<void> }>;
}

/** The backends every storage contract test runs against. */
export function contractStores(): StoreFactory[] {
  const postgresUrl = inject('postgresUrl');
  return [
    {
      name: 'sqlite',
      available: true,
      async open(options = {}) {
        const temp = await openTempStore(options);
        let current = temp.store;
        return {
          store: current,
          reopen: async () => {
            await current.close();
            current = await openDatabase(temp.path, options);
            return current;
          },
          cleanup: async () => {
            await current.close().catch(() => undefined);
            const { rmSync } = await import('node:fs');
            rmSync(temp.dir, { recursive: true, force: true });
          },
        };
      },
    },
    {
      name: 'postgres',
      available: postgresUrl !== '',
      async open(options = {}) {
        const name = `dagent_${randomBytes(6).toString('hex')}`;
        const admin = new pg.Client({ connectionString: postgresUrl });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        const url = postgresUrl.replace(/\/[^/]*$/, `/${name}`);
        let current = await openDatabase(url, options);
        return {
          store: current,
          reopen: async () => {
            await current.close();
            current = await openDatabase(url, options);
            return current;
          },
          cleanup: async () => {
            await current.close().catch(() => undefined);
            const drop = new pg.Client({ connectionString: postgresUrl });
            await drop.connect();
            await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            await drop.end();
          },
        };
      },
    },
  ];
}

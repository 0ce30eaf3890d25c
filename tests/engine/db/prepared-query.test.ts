import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRun, type Store } from '../../../engine/index.js';
import { PreparedQuery } from '../../../engine/db/prepared-query.js';
import { openTempStore } from '../../helpers/temp-store.js';

describe('PreparedQuery', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ store, cleanup } = await openTempStore()));
  afterEach(async () => cleanup());

  it('compiled ahead, is built once and then runs with each execution’s values', async () => {
    const builds: number[] = [];
    const byId = new PreparedQuery<'id'>((db, param) => {
      builds.push(1);
      return db.selectFrom('runs').select('task').where('id', '=', param('id'));
    });
    const first = await createRun(store.db, { task: 'first', workspace: '/w', mode: 'plan' });
    const second = await createRun(store.db, { task: 'second', workspace: '/w', mode: 'plan' });

    byId.compileFor(store.db);
    const tasks = [await byId.execute<{ task: string }>(store.db, { id: second.id }), await byId.execute<{ task: string }>(store.db, { id: first.id })];

    expect(tasks.map((result) => result.rows[0]?.task)).toEqual(['second', 'first']);
    expect(builds).toHaveLength(1);
  });
});

import { describe, expect, it } from 'vitest';
import { createRun, openDatabase, runLog, runLogs, type SessionEvent } from '../../../engine/index.js';
import { openTempStore } from '../../helpers/temp-store.js';

describe('the live log of a run', () => {
  it('is one object per store and run: a listener sees what every writer of the store appends', async () => {
    const { store, cleanup } = await openTempStore();
    try {
      const run = await createRun(store.db, { task: 'live', workspace: '/w', mode: 'plan' });
      const seen: SessionEvent[] = [];
      runLog(store.db, run.id).onAppend((events) => seen.push(...events));

      await runLog(store.db, run.id).append({ type: 'node/started', nodeId: 'a', payload: { attempt: 1 } });
      await runLogs(store.db).of(run.id).append({ type: 'node/succeeded', nodeId: 'a', payload: { result: 'ok' } });

      expect(runLog(store.db, run.id)).toBe(runLogs(store.db).of(run.id));
      expect(seen.map((event) => event.type)).toEqual(['node/started', 'node/succeeded']);
    } finally {
      await cleanup();
    }
  });

  it('belongs to its store: another store of the same file has its own, and its appends reach only its listeners', async () => {
    const { store, path, cleanup } = await openTempStore();
    const other = await openDatabase(path);
    try {
      const run = await createRun(store.db, { task: 'two stores', workspace: '/w', mode: 'plan' });
      const seen: string[] = [];
      runLog(store.db, run.id).onAppend((events) => seen.push(...events.map((event) => event.type)));

      await runLog(other.db, run.id).append({ type: 'run/started', payload: {} });

      expect(runLog(other.db, run.id)).not.toBe(runLog(store.db, run.id));
      expect(seen).toEqual([]);
      expect((await runLog(store.db, run.id).read()).map((event) => event.type)).toEqual(['run/created', 'run/started']);
    } finally {
      await other.close();
      await cleanup();
    }
  });
});

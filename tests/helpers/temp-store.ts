import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRun, openDatabase, savePlan, type OpenDatabaseOptions, type Plan, type Store } from '../../engine/index.js';

/** A fresh SQLite store in a temporary folder; `cleanup()` closes it and removes the folder. */
export async function openTempStore(options: OpenDatabaseOptions = {}): Promise<{ store: Store; dir: string; path: string; cleanup: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'dagent-test-'));
  const path = join(dir, 'dagent.db');
  const store = await openDatabase(path, options);
  return {
    store,
    dir,
    path,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function tempDir(prefix = 'dagent-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A run of `plan` mode in `store`, its plan stored as v1 awaiting approval (as `dagent plan --from` leaves it); its id. */
export async function plannedRunIn(store: Store, workspace: string, plan: Plan, task = plan.goal): Promise<string> {
  const run = await createRun(store.db, { task, workspace, mode: 'plan' });
  await savePlan(store.db, run.id, { plan, reason: 'planned' });
  return run.id;
}


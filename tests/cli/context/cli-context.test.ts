import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CliContext } from '../../../cli/context/cli-context.js';
import type { CliIo } from '../../../cli/context/cli-io.js';
import { configHash, trustWorkspace } from '../../../engine/config/workspace-trust.js';
import { createRun, getRun } from '../../../engine/index.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * A worker runs each run's nodes in a context of the run's own workspace. That context uses the
 * worker's store (one pool of connections, already open) unless the run's workspace names secrets
 * the worker's store would not redact.
 */

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function contextIn(folder: string, name: string, db: string, config?: Record<string, unknown>): CliContext {
  const workspace = join(folder, name);
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  const env = { HOME: join(folder, 'home') };
  if (config !== undefined) {
    // A workspace's MCP servers count once the user trusted its config (`dagent trust`).
    const text = JSON.stringify(config);
    writeFileSync(join(workspace, '.dagent', 'config.json'), text);
    trustWorkspace(env, workspace, configHash(text));
  }
  const io: CliIo = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env, cwd: workspace, interrupt: new AbortController().signal };
  const context = new CliContext(io, { db });
  cleanups.push(() => context.close());
  return context;
}

function setUp(runConfig?: Record<string, unknown>): { worker: CliContext; run: CliContext } {
  const folder = tempDir('dagent-cli-context-');
  cleanups.push(folder.cleanup);
  mkdirSync(join(folder.dir, 'home'));
  const db = join(folder.dir, 'dagent.db');
  return { worker: contextIn(folder.dir, 'worker', db), run: contextIn(folder.dir, 'run', db, runConfig) };
}

describe('a run context sharing its worker\u2019s store', () => {
  it('uses the worker\u2019s store, and closing the run context leaves it open for the next run', async () => {
    const { worker, run } = setUp();
    const workerStore = await worker.store();

    expect(await run.shareStoreOf(worker)).toBe(true);
    expect(await run.store()).toBe(workerStore);
    await run.close();

    const created = await createRun(workerStore.db, { task: 'after the run context closed', workspace: worker.workspace, mode: 'plan' });
    expect((await getRun(workerStore.db, created.id)).task).toBe('after the run context closed');
  });

  it('opens its own store when the run\u2019s workspace names a secret the worker\u2019s store would not redact', async () => {
    const { worker, run } = setUp({ mcpServers: { tracker: { command: 'tracker-mcp', env: { TRACKER_TOKEN: 'tok-run-workspace-only-12345' } } } });
    const workerStore = await worker.store();

    expect(await run.shareStoreOf(worker)).toBe(false);
    const own = await run.store();
    expect(own).not.toBe(workerStore);
    await run.close();
    const created = await createRun(workerStore.db, { task: 'the worker\u2019s store stays open', workspace: worker.workspace, mode: 'plan' });
    expect((await getRun(workerStore.db, created.id)).task).toBe('the worker\u2019s store stays open');
  });
});

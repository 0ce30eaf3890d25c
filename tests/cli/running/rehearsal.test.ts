import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rehearseNodePath } from '../../../cli/running/rehearsal.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * A worker rehearses a node's path before it says it is ready (`dagent worker`, `--no-warm-up`
 * skips it): a scripted three-node plan run in its own process, on an in-memory store, in a
 * temporary folder of its own.
 */

const folders: { cleanup: () => void }[] = [];
const folder = (): string => {
  const made = tempDir('dagent-rehearsal-test-');
  folders.push(made);
  return made.dir;
};
afterEach(() => folders.splice(0).forEach((made) => made.cleanup()));

const notInterrupted = (): AbortSignal => new AbortController().signal;

describe("a worker's rehearsal of the node path", () => {
  it('runs its plan to the end and leaves nothing behind', async () => {
    const under = folder();

    const rehearsal = await rehearseNodePath({ env: { PATH: process.env.PATH }, interrupt: notInterrupted() }, { under });

    expect(rehearsal.error).toBeUndefined();
    expect(rehearsal.succeeded).toBe(true);
    expect(rehearsal.ms).toBeGreaterThan(0);
    expect(readdirSync(under)).toEqual([]);
  });

  it("uses nothing of the user's: their config's hooks do not run, and neither their database nor their model is used", async () => {
    const home = folder();
    const canary = join(home, 'hook-ran');
    mkdirSync(join(home, '.config', 'dagent'), { recursive: true });
    const hook = { command: `touch '${canary}'` };
    writeFileSync(
      join(home, '.config', 'dagent', 'config.json'),
      JSON.stringify({ db: join(home, 'config.db'), hooks: { PreToolUse: [hook], PostToolUse: [hook], NodeStart: [hook], RunEnd: [hook] } }),
    );
    const env = { PATH: process.env.PATH, HOME: home, DAGENT_DB: join(home, 'env.db'), DAGENT_MODEL: 'openai:gpt-4.1', OPENAI_BASE_URL: 'http://127.0.0.1:9' };

    const rehearsal = await rehearseNodePath({ env, interrupt: notInterrupted() }, { under: folder() });

    expect(rehearsal.succeeded).toBe(true);
    expect(existsSync(canary)).toBe(false);
    expect(readdirSync(home)).toEqual(['.config']);
  });

  it('says why when it cannot make its folder, instead of throwing', async () => {
    const rehearsal = await rehearseNodePath({ env: { PATH: process.env.PATH }, interrupt: notInterrupted() }, { under: join(folder(), 'missing', 'deeper') });

    expect(rehearsal.succeeded).toBe(false);
    expect(rehearsal.error).toContain('ENOENT');
  });

  it('is answered as failed when it does not end in time, and stopped', async () => {
    const under = folder();

    const rehearsal = await rehearseNodePath({ env: { PATH: process.env.PATH }, interrupt: notInterrupted() }, { under, timeoutMs: 1 });

    expect(rehearsal).toMatchObject({ succeeded: false, error: 'it did not end within 0.001 s' });
    await expect.poll(() => readdirSync(under), { timeout: 10_000 }).toEqual([]);
  });

  it('stops when the worker is interrupted, and still removes its folder', async () => {
    const under = folder();
    const interrupt = new AbortController();
    interrupt.abort();

    const rehearsal = await rehearseNodePath({ env: { PATH: process.env.PATH }, interrupt: interrupt.signal }, { under });

    expect(rehearsal.succeeded).toBe(false);
    expect(readdirSync(under)).toEqual([]);
  });
});

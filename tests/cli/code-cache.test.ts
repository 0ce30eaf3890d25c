import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * The binary keeps V8's compiled code of the chunks a command loaded, so the next start skips
 * parsing them. The cache only ever costs speed: the same command prints the same thing with no
 * cache, with a cache, and with a cache someone overwrote with garbage (which is then replaced).
 */

vi.setConfig({ testTimeout: 60_000 });

let temp: { dir: string; cleanup: () => void };
let cacheDir: string;

function dagent(args: readonly string[], codeCache: string): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], {
    cwd: temp.dir,
    env: { PATH: process.env.PATH, HOME: temp.dir, NO_COLOR: '1', DAGENT_CODE_CACHE: codeCache },
    encoding: 'utf8',
  });
}

function cacheFiles(): string[] {
  return readdirSync(cacheDir).sort();
}

beforeAll(() => {
  temp = tempDir('dagent-code-cache-');
  cacheDir = join(temp.dir, 'code-cache');
});

afterAll(() => temp.cleanup());

describe('the code cache', () => {
  it('is written by the first start, read by the next, and a damaged one is replaced without a word', () => {
    const uncached = dagent(['--help'], 'off');
    expect(uncached.status, uncached.stderr).toBe(0);

    const first = dagent(['--help'], cacheDir);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe(uncached.stdout);
    const written = cacheFiles();
    expect(written.some((name) => /^main\.cjs\.[\w-]+\.bin$/.test(name))).toBe(true);
    const mainData = join(cacheDir, written.find((name) => name.startsWith('main.cjs.'))!);
    const firstWrite = statSync(mainData).mtimeMs;

    const second = dagent(['--help'], cacheDir);
    expect(second.stdout).toBe(uncached.stdout);
    expect(cacheFiles()).toEqual(written);
    expect(statSync(mainData).mtimeMs).toBe(firstWrite);

    for (const name of written) writeFileSync(join(cacheDir, name), 'not compiled code at all');
    const damaged = dagent(['--help'], cacheDir);
    expect(damaged.status, damaged.stderr).toBe(0);
    expect(damaged.stderr).toBe('');
    expect(damaged.stdout).toBe(uncached.stdout);
    expect(readFileSync(mainData, 'utf8')).not.toBe('not compiled code at all');
  });

  it('adds the chunks another command needs, and that command reads the store as it does without a cache', () => {
    const uncached = dagent(['status'], 'off');
    const cached = dagent(['status'], cacheDir);
    const again = dagent(['status'], cacheDir);
    expect(cached.status, cached.stderr).toBe(0);
    expect([cached.stdout, again.stdout]).toEqual([uncached.stdout, uncached.stdout]);
    expect(cacheFiles().some((name) => name.startsWith('status-'))).toBe(true);
  });
});

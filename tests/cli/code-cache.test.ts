import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

function dagent(args: readonly string[], codeCache: string, home = temp.dir): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], {
    cwd: temp.dir,
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', DAGENT_CODE_CACHE: codeCache },
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
  it('is written by the first start, read by the next, and a damaged one is discarded with a notice and replaced', () => {
    const uncached = dagent(['--help'], 'off');
    expect(uncached.status, uncached.stderr).toBe(0);

    const first = dagent(['--help'], cacheDir);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe(uncached.stdout);
    const written = cacheFiles();
    expect(written.some((name) => /^main\.cjs\.[\w-]+\.[\w-]+\.bin$/.test(name))).toBe(true);
    const mainData = join(cacheDir, written.find((name) => name.startsWith('main.cjs.'))!);
    const firstWrite = statSync(mainData).mtimeMs;

    const second = dagent(['--help'], cacheDir);
    expect(second.stdout).toBe(uncached.stdout);
    expect(cacheFiles()).toEqual(written);
    expect(statSync(mainData).mtimeMs).toBe(firstWrite);

    for (const name of written) writeFileSync(join(cacheDir, name), 'not compiled code at all');
    const damaged = dagent(['--help'], cacheDir);
    expect(damaged.status, damaged.stderr).toBe(0);
    expect(damaged.stderr).toMatch(/^dagent: discarded the code cache file .*main\.cjs\.[\w.-]+\.bin: its seal does not match \(damaged, or not written by dagent\); compiling afresh$/m);
    expect(damaged.stderr.trim().split('\n').every((line) => line.startsWith('dagent: discarded the code cache file '))).toBe(true);
    expect(damaged.stdout).toBe(uncached.stdout);
    expect(readFileSync(mainData, 'utf8')).not.toBe('not compiled code at all');
  });

  it.each(['raw', 'fake-seal'])('discards forged data (%s) that V8 would take for the chunk, and never runs it', (mode) => {
    const canary = join(temp.dir, `payload-ran-${mode}`);
    expect(dagent(['--help'], cacheDir).status).toBe(0);
    const name = cacheFiles().find((file) => file.startsWith('main.cjs.'))!;
    const chunk = join(realpathSync(DAGENT_BIN), '..', '..', 'dist', 'cli-bundle', 'main.cjs'); // an installed bin is a link into the package
    const forge = spawnSync(process.execPath, [fileURLToPath(new URL('../fixtures/forge-code-cache.cjs', import.meta.url)), chunk, join(cacheDir, name), canary, mode], { encoding: 'utf8' });
    expect(forge.stdout, forge.stderr).toBe('accepted\n');

    const next = dagent(['--help'], cacheDir);
    expect(next.status, next.stderr).toBe(0);
    expect(existsSync(canary)).toBe(false);
    expect(next.stderr).toContain(`dagent: discarded the code cache file ${join(cacheDir, name)}: its seal does not match`);
    expect(next.stdout).toContain('Commands:');
    expect(dagent(['--help'], cacheDir).stderr).toBe('');
  });

  it('is shared by users with keys of their own without a word: each reads only the files sealed with its key', () => {
    const other = join(temp.dir, 'other-home');
    mkdirSync(other);
    const mine = dagent(['--help'], cacheDir);
    const theirs = dagent(['--help'], cacheDir, other);
    expect([mine.stderr, theirs.stderr]).toEqual(['', '']);
    expect(theirs.stdout).toBe(mine.stdout);
    expect(readdirSync(join(other, '.config', 'dagent'))).toEqual(['code-cache.key']);
    expect(statSync(join(other, '.config', 'dagent', 'code-cache.key')).mode & 0o777).toBe(0o600);
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

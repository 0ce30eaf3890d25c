import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

let temp: { dir: string; cleanup: () => void };
let workspace: string;

beforeEach(() => {
  temp = tempDir('dagent-db-path-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(workspace);
  mkdirSync(join(temp.dir, 'home'));
});

afterEach(() => temp.cleanup());

describe('--db that is not a database file', () => {
  it('refuses a device such as /dev/null with exit 2, and writes nothing beside it', async () => {
    const journalBefore = existsSync('/dev/null-journal');
    const result = await runCli(['--db', '/dev/null', 'status'], { cwd: workspace, env: { HOME: join(temp.dir, 'home'), PATH: process.env.PATH } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--db /dev/null is not a regular file (a device or special file)');
    expect(existsSync('/dev/null-journal')).toBe(journalBefore);
  });

  it('refuses a folder with exit 2', async () => {
    const result = await runCli(['--db', temp.dir, 'status'], { cwd: workspace, env: { HOME: join(temp.dir, 'home'), PATH: process.env.PATH } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a regular file (a folder)');
  });
});

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTempLeftovers } from '../../../engine/snapshots/file-temp-leftovers.js';
import { tempDir } from '../../helpers/temp-store.js';

let workspace: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir: workspace, cleanup } = tempDir('dagent-leftovers-'));
  mkdirSync(join(workspace, 'src'));
});
afterEach(() => cleanup());

describe('temporary files left by a killed write', () => {
  it('removes those of the write set and leaves a sibling node’s alone', async () => {
    writeFileSync(join(workspace, 'src', '.a.ts.8fe8d0224915.dagent-tmp'), 'half');
    writeFileSync(join(workspace, 'src', '.b.ts.9280bdae.dagent-tmp'), 'sibling');
    writeFileSync(join(workspace, 'src', '.notes.txt'), 'not ours');

    const removed = await removeTempLeftovers(workspace, ['src/a.ts']);

    expect(removed).toEqual(['src/.a.ts.8fe8d0224915.dagent-tmp']);
    expect(existsSync(join(workspace, 'src', '.b.ts.9280bdae.dagent-tmp'))).toBe(true);
    expect(existsSync(join(workspace, 'src', '.notes.txt'))).toBe(true);
  });

  it('follows globs of the write set', async () => {
    writeFileSync(join(workspace, 'src', '.x.ts.abc123.dagent-tmp'), '');
    expect(await removeTempLeftovers(workspace, ['src/*.ts'])).toEqual(['src/.x.ts.abc123.dagent-tmp']);
    expect(await removeTempLeftovers(workspace, [])).toEqual([]);
  });
});

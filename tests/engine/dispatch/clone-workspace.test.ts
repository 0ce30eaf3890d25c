import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CloneWorkspace } from '../../../engine/index.js';
import { gitInit } from './fleet-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * Clone mode: a node stopped by the run on one worker goes on on another, in that worker's own
 * clone. Its files there are the clone readied for the node, then the step's checkpoint (a patch
 * from the log): also the checkpoint the run's stop let a step take after one of its writes had
 * finished, which holds the files as the stopped worker left them.
 */

const dirs: { cleanup: () => void }[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.cleanup();
});

async function twoClones(): Promise<{ first: CloneWorkspace; second: CloneWorkspace; secondDir: string }> {
  const root = tempDir('dagent-clone-workspace-');
  dirs.push(root);
  const origin = join(root.dir, 'origin');
  mkdirSync(join(origin, 'src'), { recursive: true });
  writeFileSync(join(origin, 'src/a.txt'), 'a before\n');
  gitInit(origin);
  const base = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: origin, encoding: 'utf8' }).trim();
  const [firstDir, secondDir] = ['one', 'two'].map((name) => {
    const dir = join(root.dir, name);
    execFileSync('git', ['clone', '-q', origin, dir], { stdio: 'ignore' });
    return dir;
  }) as [string, string];
  const first = await new CloneWorkspace(firstDir, base).open();
  const second = await new CloneWorkspace(secondDir, base).open();
  await first.prepare([]);
  writeFileSync(join(firstDir, 'src/a.txt'), 'a after\n');
  await second.prepare([]);
  return { first, second, secondDir };
}

describe("a clone goes on from another worker's stopped step", () => {
  it("put at the checkpoint the run's stop let the step take (files as left), holds the stopped worker's write", async () => {
    const { first, second, secondDir } = await twoClones();
    const checkpoint = await first.files.checkpointNode!('work', ['src/a.txt'], undefined);

    const restore = await second.files.resumeNode!('work', ['src/a.txt'], undefined, { kind: 'as-left', checkpoint });

    expect(restore).toEqual({ restored: ['src/a.txt'], unrestorable: [] });
    expect(readFileSync(join(secondDir, 'src/a.txt'), 'utf8')).toBe('a after\n');
    expect(await second.patch()).toContain('+a after');
  });

  it('with no checkpoint of the files as left (its worker died), cannot go on', async () => {
    const { second } = await twoClones();

    await expect(second.files.resumeNode!('work', ['src/a.txt'], undefined, { kind: 'as-left' })).rejects.toThrow('a clone cannot go on from files another worker left');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

let workspace: string;
let cleanup: () => void;
beforeEach(() => ({ dir: workspace, cleanup } = tempDir('dagent-memory-')));
afterEach(() => cleanup());

describe('dagent memory', () => {
  it('adds, deduplicates, lists, searches and removes long-term memories', async () => {
    const added = await runCli(['memory', 'add', 'Tests need `npm run build` first', '--kind', 'lesson'], { cwd: workspace });
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toMatch(/^remembered: \[project lesson #1\] Tests need `npm run build` first/);

    const again = await runCli(['memory', 'add', '  tests NEED `npm run build` first '], { cwd: workspace });
    expect(again.stdout).toMatch(/^already known: .*#1/);

    await runCli(['memory', 'add', 'Money is integer cents', '--kind', 'convention'], { cwd: workspace });
    const listed = await runCli(['memory', 'list', '--json'], { cwd: workspace });
    expect(JSON.parse(listed.stdout).memories).toHaveLength(2);

    const found = await runCli(['memory', 'search', 'how to run the build before tests'], { cwd: workspace });
    expect(found.stdout.split('\n')[0]).toContain('#1');

    expect((await runCli(['memory', 'rm', '1'], { cwd: workspace })).stdout).toBe('removed memory #1\n');
    const missing = await runCli(['memory', 'rm', '1'], { cwd: workspace });
    expect(missing).toMatchObject({ code: 2, stderr: 'dagent: no memory #1: `dagent memory list` shows the ids\n' });
  });

  it('refuses an empty memory and a bad id in one line', async () => {
    expect((await runCli(['memory', 'add'], { cwd: workspace })).stderr).toBe('dagent: memory add needs the text to remember\n');
    expect((await runCli(['memory', 'rm', 'abc'], { cwd: workspace })).code).toBe(2);
  });
});

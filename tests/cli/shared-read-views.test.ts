import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * Under `isolation: worktree`, the nodes that can only read share one view of the run branch
 * while it stays where it is: no worktree of their own to check out, commit and merge. A node
 * after an edit reads the edit; a read node given a tool that writes gets its own worktree.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;

const git = (...args: string[]): string => execFileSync('git', args, { cwd: workspace, env: { PATH: process.env.PATH, HOME: temp.dir }, encoding: 'utf8' }).trim();
const cli = (...args: string[]) =>
  runCli([...args, '--db', join(temp.dir, 'dagent.db'), '--model', `scripted:${join(temp.dir, 'script.json')}`, '--approval', 'auto', '--no-sandbox'], { cwd: workspace, env: { HOME: temp.dir, PATH: process.env.PATH, NO_COLOR: '1' } });

beforeEach(() => {
  temp = tempDir('dagent-read-views-');
  workspace = join(temp.dir, 'repo');
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  writeFileSync(join(workspace, 'a.txt'), 'before\n');
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'add', 'a.txt');
  git('-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'initial');
  writeFileSync(join(workspace, '.dagent', '.gitignore'), '*\n');
});

afterEach(() => temp.cleanup());

const reads = (id: string, dependsOn: string[] = [], tools?: string[]) => ({ id, kind: 'read', title: `Read a (${id})`, instructions: 'Read a.txt.', reads: ['a.txt'], writes: [], dependsOn, ...(tools === undefined ? {} : { tools }) });
const readTurns = (id: string) => [{ toolCalls: [{ id: `${id}-1`, name: 'read_file', args: { path: 'a.txt' } }] }, { text: `${id} read it` }];

describe('nodes that only read, each in an isolated run', () => {
  it('share one view of the tip, read what an earlier edit merged, and leave no commit; a read node that may write gets its own', async () => {
    const plan = {
      goal: 'Read, edit, read again',
      rationale: 'two readers side by side, an edit after them, then a reader of the edit',
      nodes: [
        reads('first'),
        reads('second'),
        reads('writer-tools', [], ['read_file', 'write_file']),
        { id: 'edit', kind: 'edit', title: 'Edit a', instructions: 'Append a line.', reads: ['a.txt'], writes: ['a.txt'], dependsOn: ['first', 'second', 'writer-tools'] },
        reads('after', ['edit']),
      ],
    };
    const script = {
      agents: {
        'node:first': readTurns('first'),
        'node:second': readTurns('second'),
        'node:writer-tools': readTurns('writer-tools'),
        'node:edit': [{ toolCalls: [{ id: 'e-1', name: 'write_file', args: { path: 'a.txt', content: 'before\nafter the edit\n' } }] }, { text: 'edited' }],
        'node:after': readTurns('after'),
      },
    };
    writeFileSync(join(temp.dir, 'plan.json'), JSON.stringify(plan));
    writeFileSync(join(temp.dir, 'script.json'), JSON.stringify(script));

    const ran = await cli('plan', '--from', join(temp.dir, 'plan.json'), '--yes');

    expect(ran.code, ran.stderr).toBe(0);
    const runId = /run (r-[0-9a-f]+) succeeded/.exec(ran.stdout)![1]!;
    const snapshots = (await cli('log', runId, '--type', 'node/snapshotted', '--json')).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { nodeId: string; payload: { boundary: { kind: string; path: string } } });
    const pathOf = (nodeId: string): string => snapshots.find((event) => event.nodeId === nodeId)!.payload.boundary.path;
    expect(pathOf('second')).toBe(pathOf('first'));
    expect(pathOf('writer-tools')).not.toBe(pathOf('first'));
    expect(pathOf('edit')).not.toBe(pathOf('first'));
    // The reader after the edit read the merged file (in a view of the new tip: the first view's folder, reset, once nobody read it).
    const results = (await cli('log', runId, '--type', 'tool/result', '--json')).stdout;
    expect(results.split('\n').find((line) => line.includes('"nodeId":"after"'))).toContain('after the edit');
    // One commit on the run branch: the edit's.
    expect(git('log', '--format=%s', `dagent/${runId}`).split('\n')).toEqual(['dagent: edit (attempt 1): Edit a', 'initial']);
  }, 60_000);
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, FileSnapshots, createRun, openDatabase } from '../../engine/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

let workspace: string;
let cleanup: () => void;
let runId: string;

const put = (path: string, content: string): void => {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  writeFileSync(join(workspace, path), content);
};
const cli = (...args: string[]) => runCli(args, { cwd: workspace });

/** One node as the run controller records it: started, its writes snapshotted, succeeded. */
async function recordNode(snapshots: FileSnapshots, log: EventLog, nodeId: string, files: Record<string, string>): Promise<void> {
  const writes = Object.keys(files);
  await log.append({ type: 'node/started', nodeId, payload: { attempt: 1 } });
  const boundary = await snapshots.beginNode(nodeId, writes);
  const scope = snapshots.writeScopeFor(nodeId, writes);
  for (const [path, content] of Object.entries(files)) {
    await scope.beforeWrite(path);
    put(path, content);
  }
  await snapshots.endNode(nodeId, writes, boundary);
  await log.append({ type: 'node/succeeded', nodeId, payload: { result: 'done' } });
}

beforeEach(async () => {
  ({ dir: workspace, cleanup } = tempDir('dagent-cli-reverted-'));
  put('src/a.js', 'export function greet() {}\n');
  put('src/b.js', 'greet();\n');
  const store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
  runId = (await createRun(store.db, { task: 'Rename greet() to sayHello()', workspace, mode: 'plan' })).id;
  const log = new EventLog(store.db, runId);
  const snapshots = new FileSnapshots({ db: store.db, runId, workspace, git: false });
  await recordNode(snapshots, log, 'edit-a', { 'src/a.js': 'export function sayHello() {}\n' });
  await recordNode(snapshots, log, 'edit-b', { 'src/b.js': 'sayHello();\n' });
  await store.close();
});
afterEach(() => cleanup());

describe('after dagent revert, the run says its changes were undone', () => {
  it('status, status --json and log say the whole run was reverted, when, and which files', async () => {
    expect((await cli('revert', runId)).code).toBe(0);

    const status = await cli('status', runId);
    expect(status.stdout).toMatch(/reverted: the run's changes, by `dagent revert` at \d{4}-\d\d-\d\d \d\d:\d\d UTC: src\/a\.js, src\/b\.js as before the run/);
    const json = JSON.parse((await cli('status', runId, '--json')).stdout) as { run: { reverted?: { reverted: string[]; nodes: string[] } } };
    expect(json.run.reverted).toMatchObject({ reverted: ['src/a.js', 'src/b.js'], nodes: ['edit-a', 'edit-b'], conflicts: [] });
    expect((await cli('log', runId, '--type', 'revert/finished')).stdout).toContain("the run's changes reverted: src/a.js, src/b.js");
  });

  it('with --node, status names the node whose change was undone, and forgets it once the node runs again', async () => {
    expect((await cli('revert', runId, '--node', 'edit-a')).code).toBe(0);

    const status = await cli('status', runId);
    expect(status.stdout).toContain("reverted: edit-a's change, by `dagent revert --node edit-a` at ");
    expect(status.stdout).toContain(': src/a.js as before edit-a');
    expect(status.stdout).not.toContain("the run's changes");

    const store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
    await new EventLog(store.db, runId).append({ type: 'node/started', nodeId: 'edit-a', payload: { attempt: 2 } });
    await store.close();
    expect((await cli('status', runId)).stdout).not.toContain('reverted:');
  });

  it('the run list and the run\'s first line say a run\'s changes were undone, all of them or some nodes\'', async () => {
    const listed = async (): Promise<string> => (await cli('status')).stdout.split('\n').find((line) => line.startsWith(runId))!;
    const header = async (): Promise<string> => (await cli('status', runId)).stdout.split('\n')[0]!;
    expect(await listed()).not.toContain('reverted');

    expect((await cli('revert', runId, '--node', 'edit-a')).code).toBe(0);
    expect(await listed()).toMatch(/ · 1 node reverted {2,}-/);
    expect(await header()).toMatch(/ · 1 node reverted · 2\/2 nodes done$/);

    expect((await cli('revert', runId)).code).toBe(0);
    expect(await listed()).toMatch(/ · reverted {2,}-/);
    expect(await header()).toMatch(/ · reverted · 2\/2 nodes done$/);
    const list = JSON.parse((await cli('status', '--json')).stdout) as { runs: { id: string; revertState?: unknown }[] };
    expect(list.runs.find((run) => run.id === runId)?.revertState).toEqual({ scope: 'run', nodes: ['edit-a', 'edit-b'], conflicts: [] });
    const one = JSON.parse((await cli('status', runId, '--json')).stdout) as { run: { revertState?: unknown } };
    expect(one.run.revertState).toEqual({ scope: 'run', nodes: ['edit-a', 'edit-b'], conflicts: [] });
  });

  it('a revert whose file was edited since in the same lines says which file kept its edits and how to overwrite them', async () => {
    put('src/b.js', 'sayHelloAgain();\n');
    expect((await cli('revert', runId)).code).toBe(1);

    const status = await cli('status', runId);
    expect(status.stdout).toContain('src/a.js as before the run; src/b.js kept the edits made since in the lines the change made (a conflict; `dagent revert ' + runId + ' --force` overwrites them)');
  });
});

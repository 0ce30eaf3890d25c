import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/index.js';
import { EventLog, FileSnapshots, createRun, openDatabase, type Store } from '../../engine/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

const INVOICE = 'export class Invoice {\n  total(): number {\n    return 1;\n  }\n}\n';
const INVOICE_RENAMED = 'export class Invoice {\n  grandTotal(): number {\n    return 1;\n  }\n}\n';
const API = "import { Invoice } from './invoice.js';\n\nexport const amount = (invoice: Invoice) => invoice.total();\n";
const API_RENAMED = "import { Invoice } from './invoice.js';\n\nexport const amount = (invoice: Invoice) => invoice.grandTotal();\n";
const ROUTES = "export const routes = ['/invoices'];\n";

let workspace: string;
let cleanup: () => void;
let store: Store;
let runId: string;

const read = (path: string): string | undefined => (existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), 'utf8') : undefined);
const put = (path: string, content: string): void => {
  mkdirSync(dirname(join(workspace, path)), { recursive: true });
  writeFileSync(join(workspace, path), content);
};
const cli = (...args: string[]) => runCli(args, { cwd: workspace });

/** Runs one node the way the run controller does: a boundary, tool writes through the node's write scope, the node's end. */
async function recordNode(snapshots: FileSnapshots, log: EventLog, nodeId: string, writes: readonly string[], files: Record<string, string>): Promise<void> {
  await log.append({ type: 'node/started', nodeId, payload: { attempt: 1 } });
  const boundary = await snapshots.beginNode(nodeId, writes);
  const scope = snapshots.writeScopeFor(nodeId, writes);
  for (const [path, content] of Object.entries(files)) {
    expect(scope.check(path)).toBeUndefined();
    await scope.beforeWrite(path);
    put(path, content);
  }
  await snapshots.endNode(nodeId, writes, boundary);
  await log.append({ type: 'node/succeeded', nodeId, payload: { result: 'done' } });
}

async function setRunStatus(status: string): Promise<void> {
  const opened = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
  await opened.db.updateTable('runs').set({ status }).where('id', '=', runId).execute();
  await opened.close();
}

beforeEach(async () => {
  ({ dir: workspace, cleanup } = tempDir('dagent-cli-diff-'));
  put('src/invoice.ts', INVOICE);
  put('src/api.ts', API);
  store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
  runId = (await createRun(store.db, { task: 'Rename Invoice.total() to Invoice.grandTotal()', workspace, mode: 'plan' })).id;
  const log = new EventLog(store.db, runId);
  const snapshots = new FileSnapshots({ db: store.db, runId, workspace, git: false });
  await recordNode(snapshots, log, 'edit-invoice', ['src/invoice.ts'], { 'src/invoice.ts': INVOICE_RENAMED });
  await recordNode(snapshots, log, 'edit-api', ['src/api.ts', 'src/routes.ts'], { 'src/api.ts': API_RENAMED, 'src/routes.ts': ROUTES });
  await store.close();
});
afterEach(() => cleanup());

describe('dagent diff', () => {
  it('prints the whole change of a run as a unified diff', async () => {
    const result = await cli('diff', runId);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('diff --git a/src/invoice.ts b/src/invoice.ts\n--- a/src/invoice.ts\n+++ b/src/invoice.ts\n@@ -1,5 +1,5 @@\n export class Invoice {\n-  total(): number {\n+  grandTotal(): number {\n');
    expect(result.stdout).toContain('-export const amount = (invoice: Invoice) => invoice.total();\n+export const amount = (invoice: Invoice) => invoice.grandTotal();\n');
    expect(result.stdout).toContain('diff --git a/src/routes.ts b/src/routes.ts\nnew file mode 100644\n--- /dev/null\n+++ b/src/routes.ts\n');
    expect(result.stdout).not.toContain('\u001b[');
    expect(result.stdout.endsWith('\n\n')).toBe(false);
  });

  it('with --node, prints only that node\'s change', async () => {
    const result = await cli('diff', runId, '--node', 'edit-api');
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^diff --git .*$/gm)).toEqual(['diff --git a/src/api.ts b/src/api.ts', 'diff --git a/src/routes.ts b/src/routes.ts']);
  });

  it('with --stat, prints lines added and removed per file and the totals', async () => {
    const whole = await cli('diff', runId, '--stat');
    expect(whole.code).toBe(0);
    expect(whole.stdout).toBe(
      [
        ' src/api.ts     | +1 -1  edit-api',
        ' src/invoice.ts | +1 -1  edit-invoice',
        ' src/routes.ts  | +1 -0  edit-api (new file)',
        ' 3 files changed, 3 insertions(+), 2 deletions(-)',
        '',
      ].join('\n'),
    );
    const node = await cli('diff', runId, '--node', 'edit-invoice', '--stat');
    expect(node.stdout).toBe(' src/invoice.ts | +1 -1\n 1 file changed, 1 insertion(+), 1 deletion(-)\n');
  });

  it('with --json, prints the RunDiff; with --stat --json, the counts without hunks', async () => {
    const diff = JSON.parse((await cli('--json', 'diff', runId, '--node', 'edit-api')).stdout);
    expect(Object.keys(diff)).toEqual(['runId', 'nodeId', 'files']);
    expect(diff).toMatchObject({ runId, nodeId: 'edit-api' });
    expect(diff.files.map((file: { path: string; change: string; content: string; nodeIds: string[] }) => [file.path, file.change, file.content, file.nodeIds])).toEqual([
      ['src/api.ts', 'modified', 'text', ['edit-api']],
      ['src/routes.ts', 'added', 'text', ['edit-api']],
    ]);
    expect(Object.keys(diff.files[0])).toEqual(['path', 'change', 'content', 'nodeIds', 'hunks']);
    expect(diff.files[0].hunks).toEqual([
      {
        oldStart: 1,
        oldLines: 3,
        newStart: 1,
        newLines: 3,
        lines: [
          " import { Invoice } from './invoice.js';",
          ' ',
          '-export const amount = (invoice: Invoice) => invoice.total();',
          '+export const amount = (invoice: Invoice) => invoice.grandTotal();',
        ],
      },
    ]);

    const stat = JSON.parse((await cli('diff', runId, '--stat', '--json')).stdout);
    expect(stat.totals).toEqual({ files: 3, added: 3, removed: 2 });
    expect(stat.files[2]).toEqual({ path: 'src/routes.ts', change: 'added', content: 'text', added: 1, removed: 0, nodeIds: ['edit-api'] });
  });

  it('says so when a run changed no files', async () => {
    const opened = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
    const quiet = (await createRun(opened.db, { task: 'Only read', workspace, mode: 'plan' })).id;
    await opened.close();
    expect(await cli('diff', quiet)).toEqual({ code: 0, stdout: `run ${quiet} changed no files\n`, stderr: '' });
    expect(JSON.parse((await cli('diff', quiet, '--json')).stdout)).toEqual({ runId: quiet, nodeId: null, files: [] });
  });

  it('exits 2 with one line for an unknown run or node', async () => {
    const node = await cli('diff', runId, '--node', 'edit-nothing');
    expect(node).toMatchObject({ code: 2, stdout: '' });
    expect(node.stderr).toBe(`dagent: run ${runId} has no node "edit-nothing": \`dagent status ${runId}\` lists its nodes\n`);
    const run = await cli('diff', 'r-0000000');
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('unknown run "r-0000000"');
  });

  it('colours added and removed lines only on a terminal without NO_COLOR', async () => {
    const onTerminal = async (env: NodeJS.ProcessEnv): Promise<string> => {
      const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
      let out = '';
      stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const code = await main(['diff', runId, '--node', 'edit-invoice'], { stdout, stderr: new PassThrough(), stdin: new PassThrough(), env, cwd: workspace, interrupt: new AbortController().signal });
      expect(code).toBe(0);
      return out;
    };
    const coloured = await onTerminal({});
    expect(coloured).toContain('\u001b[31m-  total(): number {\u001b[0m');
    expect(coloured).toContain('\u001b[32m+  grandTotal(): number {\u001b[0m');
    expect(coloured).toContain('    return 1;\n');
    expect(await onTerminal({ NO_COLOR: '1' })).not.toContain('\u001b[');
  });
});

describe('dagent revert', () => {
  it('with --node, restores only that node\'s files and logs each one', async () => {
    const result = await cli('revert', runId, '--node', 'edit-api');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      ['restored  src/api.ts     as before edit-api', 'deleted   src/routes.ts  created by edit-api', `node edit-api of run ${runId}: 2 files reverted`, ''].join('\n'),
    );
    expect([read('src/api.ts'), read('src/routes.ts'), read('src/invoice.ts')]).toEqual([API, undefined, INVOICE_RENAMED]);

    const log = await cli('log', runId, '--type', 'file/reverted', '--json');
    expect(log.stdout.trim().split('\n').map((line) => JSON.parse(line).payload)).toEqual([
      { path: 'src/api.ts', node: 'edit-api', scope: 'node', action: 'restored', forced: false },
      { path: 'src/routes.ts', node: 'edit-api', scope: 'node', action: 'deleted', forced: false },
    ]);
  });

  it('reverts a whole run, and a second revert finds nothing left to do', async () => {
    const result = await cli('revert', runId);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`run ${runId}: 3 files reverted`);
    expect([read('src/api.ts'), read('src/routes.ts'), read('src/invoice.ts')]).toEqual([API, undefined, INVOICE]);

    const again = await cli('--json', 'revert', runId);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({
      runId,
      nodeId: null,
      restored: [],
      conflicted: [],
      unchanged: ['src/api.ts', 'src/invoice.ts', 'src/routes.ts'],
      dryRun: false,
    });
  });

  it('exits 1 on a conflict, leaves the file alone and points at --force and diff; --force resolves it', async () => {
    const edited = API_RENAMED.replace('grandTotal()', 'grandTotal() * 2');
    put('src/api.ts', edited);

    const refused = await cli('revert', runId, '--node', 'edit-api');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('conflict  src/api.ts     the file has changed since in the lines the change touched');
    expect(refused.stdout).toContain(`node edit-api of run ${runId}: 1 file reverted, 1 conflict left untouched`);
    expect(refused.stdout).toContain(`\`dagent diff ${runId} --node edit-api\` shows the change; \`dagent revert ${runId} --node edit-api --force\``);
    expect(read('src/api.ts')).toBe(edited);
    expect(read('src/routes.ts')).toBeUndefined();

    const json = JSON.parse((await cli('revert', runId, '--node', 'edit-api', '--json')).stdout);
    expect(json.conflicted).toEqual([{ path: 'src/api.ts', nodeId: 'edit-api', reason: 'the file has changed since in the lines the change touched', remedy: 'force' }]);

    const wouldForce = await cli('revert', runId, '--node', 'edit-api', '--force', '--dry-run');
    expect(wouldForce.stdout).toContain('would restore  src/api.ts  as before edit-api, over the edits made since (they would be lost)');
    const forced = await cli('revert', runId, '--node', 'edit-api', '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('restored  src/api.ts  as before edit-api, over the edits made since (they are gone)');
    expect(read('src/api.ts')).toBe(API);
  });

  it('with --dry-run, reports what it would do and writes nothing', async () => {
    const result = await cli('revert', runId, '--dry-run');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('dry run: nothing written');
    expect(result.stdout).toContain('would delete   src/routes.ts');
    expect(result.stdout).toContain(`run ${runId}: 3 files would be reverted`);
    expect([read('src/api.ts'), read('src/routes.ts'), read('src/invoice.ts')]).toEqual([API_RENAMED, ROUTES, INVOICE_RENAMED]);

    const json = JSON.parse((await cli('revert', runId, '--dry-run', '--json')).stdout);
    expect(json).toMatchObject({ runId, nodeId: null, dryRun: true, conflicted: [] });
    expect(json.restored.map((file: { path: string; action: string }) => [file.path, file.action])).toEqual([
      ['src/api.ts', 'restored'],
      ['src/invoice.ts', 'restored'],
      ['src/routes.ts', 'deleted'],
    ]);
    expect((await cli('log', runId, '--type', 'file/reverted', '--json')).stdout).toBe('');
  });

  it('exits 2 for an unknown node, touching nothing', async () => {
    const result = await cli('revert', runId, '--node', 'edit-nothing');
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr.trim().split('\n')).toEqual([`dagent: run ${runId} has no node "edit-nothing": \`dagent status ${runId}\` lists its nodes`]);
    expect(read('src/api.ts')).toBe(API_RENAMED);
  });

  it('refuses a run that is still running unless --force; a dry run is allowed', async () => {
    await setRunStatus('running');
    const refused = await cli('revert', runId, '--node', 'edit-api');
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr.trim().split('\n')).toEqual([
      `dagent: run ${runId} is running: its nodes may still write these files; wait for it or \`dagent cancel ${runId}\` first (--force reverts anyway)`,
    ]);
    expect(read('src/api.ts')).toBe(API_RENAMED);

    expect((await cli('revert', runId, '--node', 'edit-api', '--dry-run')).code).toBe(0);
    expect(read('src/api.ts')).toBe(API_RENAMED);

    expect((await cli('revert', runId, '--node', 'edit-api', '--force')).code).toBe(0);
    expect(read('src/api.ts')).toBe(API);
  });

  it('says so when there is nothing to revert', async () => {
    const opened = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
    const quiet = (await createRun(opened.db, { task: 'Only read', workspace, mode: 'plan' })).id;
    await opened.close();
    expect(await cli('revert', quiet)).toEqual({ code: 0, stdout: `run ${quiet} changed no files: nothing to revert\n`, stderr: '' });
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRun, openDatabase } from '../../engine/index.js';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/** `doctor` only looks (no database appears where it ran); `dagent tool` calls stay out of the run list unless asked for. */

let workspace: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  const made = tempDir('dagent-tool-runs-');
  cleanup = made.cleanup;
  workspace = join(made.dir, 'repo');
  home = join(made.dir, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  writeFileSync(join(workspace, 'a.txt'), 'hello\n');
});
afterEach(() => cleanup());

vi.setConfig({ testTimeout: 120_000 });

function dagent(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 90_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('read-only commands and tool runs', () => {
  it('doctor creates no database and no .dagent folder', () => {
    const result = dagent('doctor');

    expect(result.stdout).toMatch(/database\s+ok\s+.*not created yet \(the first `dagent plan` creates it\)/);
    expect(existsSync(join(workspace, '.dagent'))).toBe(false);
  });

  it('doctor lines up its answers in a column after every check\'s name', () => {
    const lines = dagent('doctor').stdout.trim().split('\n');

    const names = ['sandbox', 'git', 'isolation', 'database', 'keys'];
    const found = names.map((name) => lines.find((line) => line.startsWith(`${name} `)));
    expect(found.every((line) => line !== undefined), lines.join('\n')).toBe(true);
    const columns = new Set(found.map((line) => /^\S+\s+/.exec(line!)![0].length));
    expect([...columns]).toHaveLength(1);
  });

  it('status leaves dagent tool calls out of the list, says so, and --all lists them', () => {
    expect(dagent('tool', 'read_file', JSON.stringify({ path: 'a.txt' })).status).toBe(0);

    expect(dagent('status').stdout.trim()).toBe('no runs yet: `dagent plan "<task>"` starts one (1 `dagent tool` call: status --all lists them)');
    expect((JSON.parse(dagent('--json', 'status').stdout) as { runs: unknown[] }).runs).toEqual([]);
    const all = JSON.parse(dagent('--json', 'status', '--all').stdout) as { runs: { mode: string; status: string }[] };
    expect(all.runs).toEqual([expect.objectContaining({ mode: 'tool', status: 'succeeded' })]);
  });

  it('lists the newest runs that are not tool calls however many tool calls came after them, says when the list is cut, and doctor counts them all', async () => {
    const store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
    for (let index = 0; index < 3; index += 1) await createRun(store.db, { task: `plan ${index}`, workspace, mode: 'plan' });
    for (let index = 0; index < 60; index += 1) await createRun(store.db, { task: `tool call ${index}`, workspace, mode: 'tool' });
    await store.close();

    const listed = dagent('status').stdout.trim().split('\n');
    expect(listed.slice(1, 4).map((line) => line.split(/\s{2,}/).at(-1))).toEqual(expect.arrayContaining(['plan 0', 'plan 1', 'plan 2']));
    expect(listed.at(-1)).toBe('60 `dagent tool` calls not listed: status --all lists them');
    const all = dagent('status', '--all', '--limit', '10').stdout.trim().split('\n');
    expect(all).toHaveLength(1 + 10 + 1);
    expect(all.at(-1)).toBe('the newest 10 of 63 runs: --limit 63 lists them all');
    expect(JSON.parse(dagent('--json', 'status', '--limit', '2').stdout)).toMatchObject({ total: 3, runs: [expect.anything(), expect.anything()] });
    expect(dagent('doctor').stdout).toMatch(/database\s+ok\s+.* · 63 runs/);
    const refused = dagent('status', '--limit', '0');
    expect([refused.status, refused.stderr]).toEqual([2, 'dagent: --limit must be a whole number of at least 1, not "0"\n']);
  });

  it.each([
    ['a string for arguments', ['read_file', '"a.txt"'], 'dagent: tool arguments must be a JSON object, e.g. \'{"path":"src/a.ts"}\', not a string'],
    ['null for arguments', ['read_file', 'null'], 'dagent: tool arguments must be a JSON object, e.g. \'{"path":"src/a.ts"}\', not null'],
    ['a team lead\'s tool', ['delegate', '{"id":"a","title":"t","instructions":"i"}'], 'dagent: delegate works only inside a run: the lead agent of `dagent team` calls it, and `dagent tool` runs a tool on its own'],
    ['a planned node\'s tool', ['report_missing_work', '{}'], 'dagent: report_missing_work works only inside a run: a node of a planned run calls it, and `dagent tool` runs a tool on its own'],
  ])('refuses %s at once, exit 2', (_, args, message) => {
    const result = dagent('tool', ...args);

    expect([result.status, result.stderr.trim()]).toEqual([2, message]);
  });

  it('takes arguments the tool cannot use as bad input: exit 2, with what the tool expects', () => {
    const result = dagent('tool', 'read_file', '{}');

    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Expected: { path: string');
  });
});

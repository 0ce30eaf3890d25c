import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * `edit` keeps an edit that did not validate, so nothing typed is lost, and says so every time it
 * reopens it, with the way to throw it away; an edit that is stored leaves nothing behind. The
 * same document imported or saved again makes no new version.
 */

const PLAN = { goal: 'Say hello', nodes: [{ id: 'hello', kind: 'command', title: 'Say hello', command: 'echo hello' }] };

let workspace: string;
let home: string;
let editors: string;
let cleanup: () => void;

beforeEach(() => {
  const made = tempDir('dagent-edit-drafts-');
  cleanup = made.cleanup;
  workspace = join(made.dir, 'repo');
  home = join(made.dir, 'home');
  editors = join(made.dir, 'editors');
  for (const folder of [workspace, home, editors]) mkdirSync(folder);
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(PLAN));
});
afterEach(() => cleanup());

vi.setConfig({ testTimeout: 120_000 });

/** An "editor" script that replaces the file it is given with `content` (or leaves it as it is). */
function editor(name: string, content?: string): string {
  const path = join(editors, name);
  const body = content === undefined ? '#!/bin/sh\nexit 0\n' : `#!/bin/sh\nprintf '%s' '${content}' > "$1"\n`;
  writeFileSync(path, body);
  chmodSync(path, 0o755);
  return path;
}

function dagent(args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', ...env }, timeout: 90_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function planned(): string {
  const result = dagent(['--json', 'plan', '--from', 'plan.json']);
  expect(result.status, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { runId: string }).runId;
}

const drafts = (): string[] => (existsSync(join(workspace, '.dagent', 'edits')) ? readdirSync(join(workspace, '.dagent', 'edits')) : []);

describe('edit and its drafts', () => {
  it('says each time that it reopens a broken edit, with the path and --discard, which throws it away', () => {
    const runId = planned();
    const draft = join(workspace, '.dagent', 'edits', `${runId}-v2.json`);

    const broken = dagent(['edit', runId], { EDITOR: editor('break', '{ broken') });
    expect(broken.status).toBe(2);
    expect(broken.stderr).toContain(`your edits are kept in ${draft}`);
    expect(broken.stderr).toContain(`\`dagent edit ${runId} --discard\` throws it away`);

    for (let time = 0; time < 2; time += 1) {
      const reopened = dagent(['edit', runId], { EDITOR: editor('keep') });
      expect(reopened.status).toBe(2);
      expect(reopened.stderr).toContain(`dagent: reopening your unfinished edit ${draft} (\`dagent edit ${runId} --discard\` throws it away`);
    }

    const discarded = dagent(['edit', runId, '--discard']);
    expect(discarded.status).toBe(0);
    expect(discarded.stdout.trim()).toBe(`discarded the unfinished edit ${draft}`);
    expect(drafts()).toEqual([]);
  });

  it('names a kept edit of an older version once a newer one is stored, keeps it, and --discard deletes it', () => {
    const runId = planned();
    const draft = join(workspace, '.dagent', 'edits', `${runId}-v2.json`);
    expect(dagent(['edit', runId], { EDITOR: editor('break', '{ broken') }).status).toBe(2);
    writeFileSync(join(workspace, 'plan2.json'), JSON.stringify({ ...PLAN, goal: 'Say hello twice' }));
    const kept = `dagent: your unfinished edit ${draft} began from plan v1, and v2 was stored since: \`dagent edit\` does not reopen it (it starts from v2); the file is kept: \`dagent import ${runId} ${draft}\` takes it as it is, \`dagent edit ${runId} --discard\` deletes it`;

    const imported = dagent(['import', runId, 'plan2.json']);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(kept);
    const edited = dagent(['edit', runId], { EDITOR: editor('keep') });
    expect(edited.stderr).toContain(kept);
    expect(drafts()).toEqual([`${runId}-v2.json`]);

    const discarded = dagent(['edit', runId, '--discard']);
    expect(discarded.stdout.trim()).toBe(`discarded the unfinished edit ${draft}`);
    expect(drafts()).toEqual([]);
  });

  it('leaves no draft behind after an edit that is stored', () => {
    const runId = planned();
    const edited = JSON.stringify({ ...PLAN, goal: 'Say hello twice' });

    const result = dagent(['edit', runId], { EDITOR: editor('good', edited) });

    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('plan v1 → v2 (edited)');
    expect(drafts()).toEqual([]);
  });

  it('makes no new version when the document is the same: imported again, or an edit that changed nothing', () => {
    const runId = planned();

    const imported = dagent(['import', runId, 'plan.json']);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout.trim()).toBe('plan unchanged: it is the same as v1 (awaiting approval); no new version');

    const untouched = dagent(['edit', runId], { EDITOR: editor('keep') });
    expect(untouched.stdout.trim()).toBe('plan unchanged: it is the same as v1 (awaiting approval); no new version');
    expect(drafts()).toEqual([]);
    expect(dagent(['show', runId]).stdout).toMatch(/plan v1\b/);
  });
});

import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';

const exec = promisify(execFile);

/**
 * A run in CI or a pipe shows progress lines, never the screen: its process does not load the
 * dashboard's code (blessed and its widgets, some 50 ms of its start here). A small preload
 * notes every package the process requires.
 */
describe('dagent run in a pipe', () => {
  let dir: { dir: string; cleanup: () => void };
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it('prints its progress lines without loading the dashboard', async () => {
    const script = { agents: { 'node:note': [{ text: 'noted' }] } };
    const plan = { goal: 'Take a note', rationale: 'a one-node run', nodes: [{ id: 'note', kind: 'read', title: 'Note', instructions: 'Say noted.', reads: [], writes: [], dependsOn: [] }] };
    writeFileSync(join(dir.dir, 'script.json'), JSON.stringify(script));
    writeFileSync(join(dir.dir, 'plan.json'), JSON.stringify(plan));
    const loaded = join(dir.dir, 'loaded.txt');
    const preload = join(dir.dir, 'note-requires.cjs');
    writeFileSync(
      preload,
      "const Module = require('node:module'); const { appendFileSync } = require('node:fs'); const load = Module._load;\n" +
        'Module._load = function (request, ...rest) { appendFileSync(process.env.LOADED_FILE, request + "\\n"); return load.call(this, request, ...rest); };\n',
    );
    const flags = ['-w', dir.dir, '--db', join(dir.dir, 'dagent.db'), '--model', `scripted:${join(dir.dir, 'script.json')}`, '--approval', 'auto'];
    const env = { ...process.env, HOME: dir.dir, NO_COLOR: '1' };

    const planned = await exec(process.execPath, [DAGENT_BIN, 'plan', '--from', join(dir.dir, 'plan.json'), '--json', ...flags], { cwd: dir.dir, env });
    const runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
    await exec(process.execPath, [DAGENT_BIN, 'approve', runId, ...flags], { cwd: dir.dir, env });
    const run = await exec(process.execPath, ['--require', preload, DAGENT_BIN, 'run', runId, ...flags], { cwd: dir.dir, env: { ...env, LOADED_FILE: loaded } });

    expect(run.stdout).toMatch(/▶ note started\n.*✓ note /);
    expect(run.stdout).toContain(`run ${runId} succeeded`);
    const required = readFileSync(loaded, 'utf8').split('\n');
    expect(required).toContain('better-sqlite3');
    expect(required).not.toContain('blessed');
  });
});

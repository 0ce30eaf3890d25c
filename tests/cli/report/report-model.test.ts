import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/** The README's flow names the model only at `run -m`: the report still names it, and its reproduce commands pass it. */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
const cli = (args: string[]) => runCli(args, { cwd: workspace, env: { HOME: join(temp.dir, 'home'), PATH: process.env.PATH } });

beforeEach(() => {
  temp = tempDir('dagent-report-model-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(temp.dir, 'home'));
  writeFileSync(join(workspace, 'notes.txt'), 'hello\n');
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Read the notes', nodes: [{ id: 'look', kind: 'read', title: 'Read the notes', instructions: 'Read notes.txt.', reads: ['notes.txt'] }] }));
  writeFileSync(join(workspace, 'model.script.json'), JSON.stringify({ agents: { 'node:look': [{ text: 'The notes say hello.' }] } }));
});
afterEach(() => temp.cleanup());

describe('dagent report of a run whose model was named only to run', () => {
  it('names the model the nodes ran on, and passes it in the commands that reproduce the run', async () => {
    const runId = (JSON.parse((await cli(['plan', '--from', 'plan.json', '--json'])).stdout) as { runId: string }).runId;
    expect((await cli(['approve', runId])).code).toBe(0);
    const ran = await cli(['run', runId, '--no-dashboard', '-m', 'scripted:model.script.json']);
    expect(ran.code, ran.stderr).toBe(0);

    const report = JSON.parse((await cli(['report', runId, '--format', 'json'])).stdout) as { run: { model: string | null }; reproduce: string[] };

    const model = `scripted:${join(workspace, 'model.script.json')}`;
    expect(report.run.model).toBe(model);
    expect(report.reproduce.filter((line) => line.includes(' plan '))).toHaveLength(2);
    for (const line of report.reproduce.filter((command) => command.includes(' plan '))) expect(line).toContain('--model scripted');
  });
});

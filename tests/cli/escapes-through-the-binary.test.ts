import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * What the human reviews is what runs, through the built binary: a model, a plan document and a
 * repository written by an attacker put terminal escapes in a task, a plan title, a command, a
 * node id, tool arguments, file content and the model's text. The approval question, `status`,
 * `inspect`, `diff`, `log`, the plan diff of `import` and error messages show them as visible
 * escapes; none reaches the terminal raw.
 */

// OSC 52 writes the user's clipboard; OSC 0 sets the window title; ESC[2K with a carriage return
// erases what came before on the line, so only the harmless tail would be seen.
const CLIPBOARD = '\u001b]52;c;cm0gLXJmIH4=\u0007';
const TITLE = '\u001b]0;owned\u0007';
const OVERWRITE = '\r\u001b[2K';
const CSI_C1 = '\u009b2J';
const PAYLOADS = [CLIPBOARD, TITLE, OVERWRITE, CSI_C1];
/** Any control character but a line feed: none of the payloads' bytes may be printed as they are. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

vi.setConfig({ testTimeout: 60_000 });

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;
let runId: string;

function dagent(args: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], {
    cwd: workspace,
    env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' },
    encoding: 'utf8',
  });
}

function expectNothingRaw(result: SpawnSyncReturns<string>, what: string): void {
  expect(result.stdout, `${what} stdout`).not.toMatch(RAW_CONTROL);
  expect(result.stderr, `${what} stderr`).not.toMatch(RAW_CONTROL);
}

beforeAll(() => {
  temp = tempDir('dagent-escapes-bin-');
  workspace = join(temp.dir, 'workspace');
  home = join(temp.dir, 'home');
  mkdirSync(join(workspace, 'canary'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(workspace, 'canary', 'keep.txt'), 'canary\n');
  // One planned run: its title carries escapes, and its model writes a file and talks with escapes.
  const script = {
    agents: {
      'node:notes': [
        {
          text: `Writing the notes${TITLE}`,
          toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: `first line\nsecond ${CLIPBOARD}${OVERWRITE}looks fine\n` } }],
        },
        { text: `All done.${OVERWRITE}${CSI_C1} nothing to see` },
      ],
    },
  };
  writeFileSync(join(temp.dir, 'script.json'), JSON.stringify(script));
  const plan = { goal: `Write the notes${TITLE}`, nodes: [{ id: 'notes', kind: 'edit', title: `Notes${CLIPBOARD}`, instructions: 'Write notes.txt', writes: ['notes.txt'] }] };
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(plan));
  const ran = dagent(['--approval', 'auto', 'plan', '--from', join(workspace, 'plan.json'), '--yes', '-m', `scripted:${join(temp.dir, 'script.json')}`]);
  expect(ran.status, ran.stderr).toBe(0);
  expectNothingRaw(ran, 'plan --yes');
  expect(ran.stdout).toContain("succeeded");
  runId = /approved plan v1 of run (\S+)/.exec(ran.stdout)![1]!;
}, 120_000);

afterAll(() => temp.cleanup());

describe('escapes from the model, the plan and the repository, through the built binary', () => {
  it('are shown, not obeyed, by status, inspect and diff, as text and as JSON', () => {
    const status = dagent(['status']);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain('Write the notes\\e]0;owned\\x07');
    expectNothingRaw(status, 'status');

    for (const args of [['status', runId], ['--json', 'inspect', runId, '--node', 'notes']]) {
      const result = dagent(args);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expectNothingRaw(result, args.join(' '));
    }
    const inspect = dagent(['inspect', runId, '--node', 'notes']);
    expect(inspect.status, inspect.stderr).toBe(0);
    expect(inspect.stdout).toContain('Writing the notes\\e]0;owned\\x07');
    expect(inspect.stdout).toContain('\\u001b]52;c;cm0gLXJmIH4=');
    expectNothingRaw(inspect, 'inspect');

    const diff = dagent(['diff', runId]);
    expect(diff.status, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('+second \\e]52;c;cm0gLXJmIH4=\\x07\\r\\e[2Klooks fine');
    expectNothingRaw(diff, 'diff');
  });

  it('are shown in the plan diff of `import` and in the error for a node id that is not a slug', () => {
    const plan = (title: string, command: string) => ({ goal: 'Run the tests', nodes: [{ id: 'test', kind: 'command', title, command }] });
    writeFileSync(join(workspace, 'plan-v1.json'), JSON.stringify(plan('Run the tests', 'npm test')));
    const planned = dagent(['--json', 'plan', '--from', join(workspace, 'plan-v1.json')]);
    expect(planned.status, planned.stderr).toBe(0);
    const planRun = (JSON.parse(planned.stdout) as { runId: string }).runId;

    writeFileSync(join(workspace, 'plan-v2.json'), JSON.stringify(plan(`Run the tests${CSI_C1}${TITLE}`, `rm -rf canary${OVERWRITE}npm test`)));
    const imported = dagent(['import', planRun, join(workspace, 'plan-v2.json')]);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stdout).toContain('~ test.command: "npm test" → "rm -rf canary\\r\\u001b[2Knpm test"');
    expect(imported.stdout).toMatch(/~ test\.title: .*\\x9b2J/);
    expectNothingRaw(imported, 'import');

    writeFileSync(join(workspace, 'bad-plan.json'), JSON.stringify({ goal: 'x', nodes: [{ id: `a${CLIPBOARD}`, kind: 'command', title: `t${TITLE}`, command: 'true' }, { id: 'b', kind: 'command', title: 'b', command: 'true', dependsOn: [`a${CLIPBOARD}`] }] }));
    const refused = dagent(['plan', '--from', join(workspace, 'bad-plan.json')]);
    expect(refused.status).toBe(2);
    expectNothingRaw(refused, 'plan with a bad node id');
    expect(readdirSync(join(workspace, 'canary'))).toEqual(['keep.txt']);
  });

  it.skipIf(!existsSync('/usr/bin/script'))('are shown in the approval question on a terminal, and the command does not run when refused', () => {
    const args = { command: `touch canary/flag${OVERWRITE}${CLIPBOARD}${TITLE}echo safe` };
    writeFileSync(join(temp.dir, 'args.json'), JSON.stringify(args));
    // `script` gives dagent a terminal (a pty); the answer "n" is typed into it.
    const asked = spawnSync('script', ['-qec', `"${process.execPath}" "${DAGENT_BIN}" tool run_command "$(cat '${join(temp.dir, 'args.json')}')"`, '/dev/null'], {
      cwd: workspace,
      env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' },
      input: 'n\n',
      encoding: 'utf8',
    });
    const screen = asked.stdout.replace(/\r\n/g, '\n');
    expect(screen).toContain('dagent wants to run_command touch canary/flag\\r\\e[2K\\e]52;c;cm0gLXJmIH4=\\x07\\e]0;owned\\x07echo safe');
    for (const payload of PAYLOADS) expect(screen).not.toContain(payload);
    expect(asked.status).toBe(1);
    expect(readdirSync(join(workspace, 'canary'))).toEqual(['keep.txt']);
  });
});

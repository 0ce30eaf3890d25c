import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * What the human reviews is what runs: a plan document and a model written by an attacker put
 * terminal escapes in a title, a command and the model's text. `plan`, `show`, `log` and `react`
 * print them as visible escapes; no raw control character reaches the terminal.
 */

// ESC[2K erases the line and \r returns to its start: on a raw terminal the reviewer would see
// only "npm test" where the command really removes a folder.
const HIDDEN_COMMAND = 'rm -rf canary\r\u001b[2Knpm test';
const TITLE = 'Run the tests\u001b]0;owned\u0007\u009b2J\u202e';
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  temp = tempDir('dagent-escapes-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'canary'), { recursive: true });
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home') };
});

afterEach(() => temp.cleanup());

const cli = (args: string[]) => runCli(args, { cwd: workspace, env });

describe('terminal escapes from the plan and the model', () => {
  it('are shown, not obeyed, by plan, show and log', async () => {
    const document = { goal: 'Test \u001b[8mhidden\u001b[0m', nodes: [{ id: 'test', kind: 'command', title: TITLE, command: HIDDEN_COMMAND }] };
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify(document));

    const planned = await cli(['plan', '--from', 'plan.json']);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).not.toMatch(RAW_CONTROL);
    expect(planned.stdout).toContain('rm -rf canary\\r\\e[2Knpm test');
    expect(planned.stdout).toContain('Run the tests\\e]0;owned\\x07\\x9b2J\\u202e');
    const runId = /^run (\S+) ·/m.exec(planned.stdout)![1]!;

    for (const format of ['text', 'mermaid', 'dot', 'json']) {
      const shown = await cli(['show', runId, '--format', format]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout, format).not.toMatch(RAW_CONTROL);
    }
    expect(JSON.parse((await cli(['show', runId, '--json'])).stdout).nodes[0].command).toBe(HIDDEN_COMMAND);

    for (const json of [false, true]) {
      const log = await cli(['log', runId, ...(json ? ['--json'] : [])]);
      expect(log.code, log.stderr).toBe(0);
      expect(log.stdout).toContain('\\u001b[8mhidden');
      expect(log.stdout).not.toMatch(RAW_CONTROL);
    }
  });

  it('are shown, not obeyed, by export to stdout, which still round-trips through import', async () => {
    const overrides = 'files \u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069 end';
    const document = { goal: 'Export', nodes: [{ id: 'test', kind: 'command', title: `${TITLE} ${overrides}`, command: 'npm test' }] };
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify(document));
    const planned = await cli(['plan', '--from', 'plan.json']);
    const runId = /^run (\S+) ·/m.exec(planned.stdout)![1]!;

    const exported = await cli(['export', runId]);

    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).not.toMatch(RAW_CONTROL);
    expect(exported.stdout).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(exported.stdout).toContain('\\u009b2J');
    // The same JSON value: the title reads back exactly as it was written.
    expect(JSON.parse(exported.stdout).nodes[0].title).toBe(`${TITLE} ${overrides}`);
  });

  it('are shown, not obeyed, in the text react streams from the model', async () => {
    const script = { agents: { react: [{ text: 'Done.\u001b[2J\u001b[H All tests pass\r\u009b31m' }] } };
    writeFileSync(join(temp.dir, 'script.json'), JSON.stringify(script));

    const result = await cli(['react', 'say done', '--model', `scripted:${join(temp.dir, 'script.json')}`]);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Done.\\e[2J\\e[H All tests pass\\r\\x9b31m');
    expect(result.stdout + result.stderr).not.toMatch(RAW_CONTROL);
    // The log prints the model's message as text: the escapes are shown there too.
    const runId = /^run (\S+) ·/m.exec(result.stderr)![1]!;
    const log = await cli(['log', runId, '--type', 'assistant/message']);
    expect(log.stdout).toContain('Done.\\e[2J\\e[H All tests pass \\x9b31m');
    expect(log.stdout).not.toMatch(RAW_CONTROL);
  });
});

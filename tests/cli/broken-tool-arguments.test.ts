import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

vi.setConfig({ testTimeout: 60_000 });

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;

beforeEach(() => {
  temp = tempDir('dagent-broken-args-');
  workspace = join(temp.dir, 'workspace');
  home = join(temp.dir, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
});
afterEach(() => temp.cleanup());

function dagent(args: readonly string[]) {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, encoding: 'utf8' });
}

describe('a tool call whose arguments are broken JSON, through the built binary', () => {
  it('is answered to the model as invalid JSON with the position, and the model can retry', () => {
    const script = {
      agents: {
        react: [
          { toolCalls: [{ name: 'write_file', argsText: '{"path": "a.txt", }' }] },
          { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'a\n' } }] },
          { text: 'Done.' },
        ],
      },
    };
    writeFileSync(join(temp.dir, 'script.json'), JSON.stringify(script));

    const ran = dagent(['react', 'write a.txt', '-m', `scripted:${join(temp.dir, 'script.json')}`, '--approval', 'auto']);
    expect(ran.status, ran.stderr).toBe(0);
    const runId = /run (r-[0-9a-f]+)/.exec(ran.stdout + ran.stderr)![1]!;

    const log = dagent(['--json', 'log', runId]);
    expect(log.status, log.stderr).toBe(0);
    const results = log.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { type: string; payload: { content?: string; isError?: boolean } })
      .filter((event) => event.type === 'tool/result');
    expect(results[0]!.payload).toMatchObject({
      isError: true,
      content:
        "the arguments of write_file are not valid JSON: Expected double-quoted property name in JSON at position 18. Send one JSON object matching the tool's schema: { path: string, content: string }",
    });
    expect(results[0]!.payload.content).not.toMatch(/expected string, received undefined/);
    expect(results[1]!.payload.isError).toBe(false);
    expect(existsSync(join(workspace, 'a.txt'))).toBe(true);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

vi.setConfig({ testTimeout: 60_000 });

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let home: string;

beforeEach(() => {
  temp = tempDir('dagent-tool-meta-');
  workspace = join(temp.dir, 'workspace');
  home = join(temp.dir, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
  writeFileSync(join(workspace, 'notes.txt'), 'line one\nline two\n');
});
afterEach(() => temp.cleanup());

function dagent(args: readonly string[]) {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, encoding: 'utf8' });
}

const UNIFORM = ['truncated', 'originalLength', 'source', 'contentType', 'provider'];

describe('every tool result carries the same metadata, through the built binary', () => {
  it('file, command, history and failed calls all record truncated, original length, source, content type and provider; inspect shows them', () => {
    const script = {
      agents: {
        react: [
          {
            toolCalls: [
              { name: 'read_file', args: { path: 'notes.txt' } },
              { name: 'list_files', args: {} },
              { name: 'run_command', args: { command: 'echo hi' } },
              { name: 'recall_history', args: { seq: 1 } },
              { name: 'read_file', args: { path: 'missing.txt' } },
              { name: 'no_such_tool', args: {} },
            ],
          },
          { text: 'Done.' },
        ],
      },
    };
    writeFileSync(join(temp.dir, 'script.json'), JSON.stringify(script));
    const ran = dagent(['react', 'look around', '-m', `scripted:${join(temp.dir, 'script.json')}`, '--approval', 'auto', '--no-sandbox']);
    expect(ran.status, ran.stderr).toBe(0);
    const runId = /run (r-[0-9a-f]+)/.exec(ran.stdout + ran.stderr)![1]!;

    const log = dagent(['--json', 'log', runId, '--type', 'tool/result']);
    expect(log.status, log.stderr).toBe(0);
    const results = log.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { payload: { name: string; meta: Record<string, unknown> } });
    expect(results).toHaveLength(6);
    for (const result of results) expect(Object.keys(result.payload.meta)).toEqual(expect.arrayContaining(UNIFORM));
    const bySource = (source: string) => results.find((result) => result.payload.meta['source'] === source)?.payload.meta;
    expect(bySource('notes.txt')).toMatchObject({ outcome: 'ok', contentType: 'text/plain', provider: 'dagent', truncated: false, originalLength: 17 });
    expect(bySource('echo hi')).toMatchObject({ outcome: 'ok', provider: 'dagent' });
    expect(bySource('missing.txt')).toMatchObject({ outcome: 'error', provider: 'dagent' });
    expect(bySource('recall_history')).toMatchObject({ provider: 'dagent', contentType: 'text/plain' });
    expect(bySource('no_such_tool')).toMatchObject({ outcome: 'unknown-tool', contentType: 'text/plain' });

    const inspect = dagent(['inspect', runId, '--node', 'react']);
    expect(inspect.status, inspect.stderr).toBe(0);
    expect(inspect.stdout).toContain('  meta: ok · source notes.txt · text/plain · provider dagent · 17 chars\n');
    const json = JSON.parse(dagent(['--json', 'inspect', runId, '--node', 'react']).stdout) as { messages: { role: string; meta?: Record<string, unknown> }[] };
    const tools = json.messages.filter((message) => message.role === 'tool');
    expect(tools).toHaveLength(6);
    for (const message of tools) expect(Object.keys(message.meta!)).toEqual(expect.arrayContaining(UNIFORM));
  });

  it('dagent tool --json returns the same fields', () => {
    const result = dagent(['--json', 'tool', 'read_file', '{"path":"notes.txt"}']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).meta).toMatchObject({ source: 'notes.txt', contentType: 'text/plain', provider: 'dagent', truncated: false, originalLength: 17 });
  });
});

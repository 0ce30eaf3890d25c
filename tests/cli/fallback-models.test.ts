import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A run left alone overnight does not die with its provider: a primary model answering 503 to
 * every call hands the node to the fallback model, which finishes it from the same messages.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;
let primary: LoopbackServer;

const OVERLOADED = { status: 503, headers: { 'content-type': 'application/json', 'retry-after-ms': '1' }, body: '{"error":{"message":"the server is overloaded"}}' };

beforeEach(async () => {
  temp = tempDir('dagent-fallback-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'src', 'a.txt'), 'old\n');
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Change a', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['src/a.txt'] }] }));
  const fallback = join(temp.dir, 'fallback.json');
  writeFileSync(fallback, JSON.stringify({ agents: { 'node:edit-a': [{ toolCalls: [{ name: 'write_file', args: { path: 'src/a.txt', content: 'new\n' } }] }, { text: 'Changed a.' }] } }));
  primary = await startLoopbackServer(...Array.from({ length: 50 }, () => OVERLOADED));
  mkdirSync(join(temp.dir, 'config', 'dagent'), { recursive: true });
  writeFileSync(join(temp.dir, 'config', 'dagent', 'config.json'), JSON.stringify({ model: 'ollama:flaky', baseUrl: primary.url, fallbackModels: [`scripted:${fallback}`] }));
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: join(temp.dir, 'config'), PATH: process.env.PATH };
});

afterEach(async () => {
  await primary.close();
  temp.cleanup();
});

const cli = (args: string[]) => runCli(args, { cwd: workspace, env });

describe('fallback models', () => {
  it('a primary answering 503 forever hands the node to the fallback, and the run succeeds', { timeout: 60_000 }, async () => {
    const planned = await cli(['plan', '--from', 'plan.json']);
    expect(planned.code, planned.stderr).toBe(0);
    const runId = /run (\S+) /.exec(planned.stdout)![1]!;
    const hash = /hash[:\s]+([0-9a-f]{12,})/i.exec((await cli(['approve', runId])).stdout)![1]!;

    const run = await cli(['run', runId, '--approved', hash]);

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(readFileSync(join(workspace, 'src', 'a.txt'), 'utf8')).toBe('new\n');
    // The first call and its three retries went to the primary, nothing after the switch.
    expect(primary.requests).toHaveLength(4);
    const switched = (await cli(['log', runId, '--type', 'model/switched', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line) as { nodeId: string; payload: { from: string; to: string; reason: string; error: string } });
    expect(switched).toHaveLength(1);
    expect(switched[0]!.nodeId).toBe('edit-a');
    expect(switched[0]!.payload).toMatchObject({ from: 'ollama:flaky', reason: 'retries-exhausted' });
    expect(switched[0]!.payload.to).toMatch(/^scripted:.*fallback\.json$/);
    expect(switched[0]!.payload.error).toContain('503');

    const status = await cli(['status', runId]);
    expect(status.stdout).toMatch(/edit-a: model ollama:flaky gave way to scripted:\S*fallback\.json \(retries exhausted: ollama 503: the server is overloaded\)/);
    // The next request went to the fallback, with the same conversation.
    const inspected = await cli(['inspect', runId, '--node', 'edit-a']);
    expect(inspected.stdout).toMatch(/^scripted:\S*fallback\.json · agent node:edit-a/m);
    const json = JSON.parse((await cli(['status', runId, '--json'])).stdout) as { nodes: { id: string; modelSwitches?: { reason: string }[] }[] };
    expect(json.nodes.find((node) => node.id === 'edit-a')?.modelSwitches).toEqual([expect.objectContaining({ reason: 'retries-exhausted' })]);
  });

  it('a plan node may list its own models: the one named first runs', async () => {
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Change a', nodes: [{ id: 'edit-a', kind: 'edit', title: 'Change a', writes: ['src/a.txt'], model: ['ollama:flaky', 'ollama:other'] }] }));
    const planned = await cli(['plan', '--from', 'plan.json']);
    expect(planned.code, planned.stderr).toBe(0);
    const runId = /run (\S+) /.exec(planned.stdout)![1]!;
    const shown = await cli(['show', runId]);
    expect(shown.stdout).toContain('model   ollama:flaky, then ollama:other');
  });
});

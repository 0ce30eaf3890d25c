import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, Session, SystemPrompt, createRun, openDatabase, type Store } from '../../engine/index.js';
import { buildRequest } from '../../engine/context/build-request.js';
import { recordRequest } from '../../engine/context/record-request.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

let workspace: string;
let cleanup: () => void;
let store: Store;
let runId: string;

beforeEach(async () => {
  ({ dir: workspace, cleanup } = tempDir('dagent-cli-'));
  store = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
  runId = (await createRun(store.db, { task: 'Rename area() to getArea()', workspace, mode: 'plan' })).id;
  const log = new EventLog(store.db, runId);
  await log.append({ type: 'plan/created', payload: { version: 1, hash: 'h1', plan: { nodes: [{ id: 'edit-a', kind: 'edit', title: 'Edit A', dependsOn: [] }, { id: 'test', kind: 'command', title: 'Test', dependsOn: ['edit-a'] }] } } });
  const session = await Session.open(log, 'edit-a');
  await session.append({ type: 'user/message', payload: { content: 'Rename area() in src/shape.ts', source: 'instruction' } });
  const snapshot = await new SystemPrompt().addSection({ id: 'identity', text: 'You are a careful coding agent.' }).assemble();
  const request = buildRequest({ agent: 'node:edit-a', model: 'deepseek-chat', snapshot, messages: session.deriveMessages(), sessionId: runId });
  await recordRequest(session, { provider: 'deepseek', request, snapshot, contextChanged: false, position: { turn: 1, step: 1 } });
  await session.append({
    type: 'assistant/message',
    step: 1,
    payload: { content: 'Renamed.', toolCalls: [], finishReason: 'stop', provider: 'deepseek', model: 'deepseek-chat', usage: { input: 1200, output: 30, cacheHit: 1000, reasoning: 0 }, costUsd: 0.0002 },
  });
  await log.append({ type: 'node/started', nodeId: 'edit-a', payload: { attempt: 1 } });
  await log.append({ type: 'node/succeeded', nodeId: 'edit-a', payload: { result: 'Renamed.' } });
  session.close();
  await store.close();
});
afterEach(() => cleanup());

describe('dagent status', () => {
  it('lists the runs of the workspace', async () => {
    const result = await runCli(['status'], { cwd: workspace });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(runId);
    expect(result.stdout).toContain('Rename area() to getArea()');
  });

  it("prints one run's nodes and totals as the JSON of the CLI contract", async () => {
    const result = await runCli(['status', runId, '--json'], { cwd: workspace });
    expect(result.code).toBe(0);
    const status = JSON.parse(result.stdout);
    expect(status.run).toMatchObject({ id: runId, planVersion: 1 });
    expect(status.nodes.map((node: { id: string; status: string }) => [node.id, node.status])).toEqual([
      ['edit-a', 'succeeded'],
      ['test', 'pending'],
    ]);
    expect(status.nodes[0]).toMatchObject({ attempts: 1, tokens: { input: 1200, output: 30, cacheHit: 1000 }, costUsd: 0.0002 });
    expect(status.totals.tokens.input).toBe(1200);
  });

  it('accepts a unique prefix of a run id', async () => {
    const result = await runCli(['status', runId.slice(0, 4)], { cwd: workspace });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`run ${runId}`);
  });

  it('says when the process of a running run is gone, and how to finish the run', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!; // a process that has exited
    const reopened = await openDatabase(join(workspace, '.dagent', 'dagent.db'));
    await new EventLog(reopened.db, runId).append({ type: 'run/started', payload: { pid: dead, host: hostname(), planVersion: 1 } });
    await reopened.close();

    const text = await runCli(['status', runId], { cwd: workspace });
    expect(text.stdout.split('\n')[0]).toBe(`run ${runId} · running, but its process (pid ${dead}) is gone · plan v1 · 1/2 nodes done`);
    expect(text.stdout).toContain(`\`dagent resume ${runId}\` finishes it`);
    const json = JSON.parse((await runCli(['status', runId, '--json'], { cwd: workspace })).stdout);
    expect(json.run).toMatchObject({ status: 'running', process: { pid: dead, alive: false } });
  });
});

describe('dagent log', () => {
  it('prints one JSON line per event, filtered by node and type', async () => {
    const result = await runCli(['log', runId, '--node', 'edit-a', '--type', 'user/message', 'assistant/message', '--json'], { cwd: workspace });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((event) => event.type)).toEqual(['user/message', 'assistant/message']);
    expect(Object.keys(lines[0])).toEqual(['seq', 'runId', 'nodeId', 'turn', 'step', 'type', 'payload', 'createdAt']);
  });

  it('matches a family of types by prefix', async () => {
    const result = await runCli(['log', runId, '--type', 'node/'], { cwd: workspace });
    expect(result.stdout.trim().split('\n').map((line) => line.trim().split(/\s+/)[3])).toEqual(['node/started', 'node/succeeded']);
  });

  it('refuses an unknown event type with the list of known ones', async () => {
    const result = await runCli(['log', runId, '--type', 'node/exploded'], { cwd: workspace });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown event type "node\/exploded"; known: user\/message/);
  });
});

describe('dagent inspect', () => {
  it('reconstructs the exact request a node sent', async () => {
    const result = await runCli(['inspect', runId, '--node', 'edit-a', '--json'], { cwd: workspace });
    expect(result.code).toBe(0);
    const request = JSON.parse(result.stdout);
    expect(request.system).toBe('You are a careful coding agent.');
    expect(request.messages).toEqual([{ role: 'user', seq: 3, source: 'instruction', content: 'Rename area() in src/shape.ts' }]);
    expect(request.header).toMatchObject({ provider: 'deepseek', model: 'deepseek-chat', agent: 'node:edit-a' });
  });

  it('prints it readably without --json', async () => {
    const result = await runCli(['inspect', runId, '--node', 'edit-a', '--step', '1'], { cwd: workspace });
    expect(result.stdout).toContain('── system ──\nYou are a careful coding agent.');
    expect(result.stdout).toContain('[seq 3] user (instruction)');
  });
});

describe('bad input: one clear line, exit code 2, no stack trace', () => {
  it('an unknown run id', async () => {
    const result = await runCli(['status', 'r-0000'], { cwd: workspace });
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('dagent: unknown run "r-0000": `dagent status` lists the runs of this workspace\n');
  });

  it('a file that is not a database', async () => {
    const notes = join(workspace, 'notes.txt');
    writeFileSync(notes, 'just some notes, nothing else. '.repeat(100));
    const result = await runCli(['status', '--db', notes], { cwd: workspace });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/is not a SQLite database or is corrupt/);
  });

  it('a database written by a newer schema', async () => {
    const { default: BetterSqlite3 } = await import('better-sqlite3');
    const raw = new BetterSqlite3(join(workspace, '.dagent', 'dagent.db'));
    raw.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('0999-next', new Date().toISOString());
    raw.close();
    const result = await runCli(['status'], { cwd: workspace });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dagent: database .* was written by a newer dagent \(unknown migrations: 0999-next\)/);
  });

  it('reads go on while another process holds the write lock', async () => {
    const { default: BetterSqlite3 } = await import('better-sqlite3');
    const holder = new BetterSqlite3(join(workspace, '.dagent', 'dagent.db'));
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const result = await runCli(['status', runId], { cwd: workspace, env: { DAGENT_BUSY_TIMEOUT_MS: '50' } });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`run ${runId}`);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('an unknown node for inspect', async () => {
    const result = await runCli(['inspect', runId, '--node', 'nope'], { cwd: workspace });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`dagent: run ${runId} has no node "nope": \`dagent status ${runId}\` lists its nodes`);
  });

  it('a missing argument', async () => {
    const result = await runCli(['inspect', runId], { cwd: workspace });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe("dagent: missing --node NODE: `dagent status RUN` lists the run's nodes");
  });
});

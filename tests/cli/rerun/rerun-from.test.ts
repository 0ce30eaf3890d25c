import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN, cliEnvironment } from '../../helpers/crash-process.js';
import { notifierRun } from '../../helpers/notifier-run.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * `dagent rerun RUN --from edit-digest` on the demo's finished run: the digest node and the test
 * node after it run again, their changes reverted first; the channels and the webhook keep their
 * results and make no model call.
 */
const run = promisify(execFile);

interface LoggedEvent {
  readonly type: string;
  readonly nodeId: string | null;
  readonly payload: Record<string, unknown>;
}

let dir: { dir: string; cleanup: () => void };
let workspace: string;
let runId: string;
let before: LoggedEvent[];
let after: LoggedEvent[];
let rerun: { stdout: string; stderr: string };
const SOURCES = ['src/channel.ts', 'src/email-channel.ts', 'src/sms-channel.ts', 'src/webhook-channel.ts', 'src/daily-digest.ts'];
let filesBefore: string[];

async function dagent(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [DAGENT_BIN, '-w', workspace, ...args], { cwd: dir.dir, env: { ...cliEnvironment(), HOME: dir.dir }, timeout: 120_000 });
}

async function events(): Promise<LoggedEvent[]> {
  return (await dagent('--json', 'log', runId)).stdout.trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
}

function requestsPerNode(log: readonly LoggedEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of log) if (event.type === 'request/header' && event.nodeId !== null) counts[event.nodeId] = (counts[event.nodeId] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  dir = tempDir('dagent-rerun-');
  ({ workspace, runId } = await notifierRun(dir.dir, { HOME: dir.dir }));
  before = await events();
  filesBefore = SOURCES.map((path) => readFileSync(join(workspace, path), 'utf8'));
  rerun = await dagent('rerun', runId, '--from', 'edit-digest', '--no-dashboard');
  after = await events();
}, 240_000);

afterAll(() => dir?.cleanup());

describe('dagent rerun --from a node of a finished run', () => {
  it('prints the new plan version and the nodes that run again, then runs them to success', () => {
    expect(rerun.stdout).toContain('plan v2 → v3 (rerun from edit-digest)');
    expect(rerun.stdout).toContain('runs again: edit-digest, test; the other nodes keep their results');
    expect(rerun.stdout).toContain('reverted: src/daily-digest.ts (edit-digest)');
    expect(rerun.stdout).toMatch(/run r-[0-9a-f]+ succeeded · plan v3 · 6\/6 nodes succeeded/);
  });

  it('makes model calls for the digest node alone, and starts only it and the test node again', () => {
    const callsBefore = requestsPerNode(before);
    const callsAfter = requestsPerNode(after);
    expect(callsAfter['edit-digest']).toBe(2 * callsBefore['edit-digest']!);
    for (const node of ['edit-channel', 'edit-email', 'edit-sms', 'edit-webhook', 'planner']) expect(callsAfter[node], node).toBe(callsBefore[node]);
    const startedAgain = after.slice(before.length).filter((event) => event.type === 'node/started').map((event) => event.nodeId);
    expect(startedAgain).toEqual(['edit-digest', 'test']);
    const resets = after.slice(before.length).filter((event) => event.type === 'node/reset').map((event) => event.nodeId);
    expect(resets).toEqual(['edit-digest', 'test']);
  });

  it('keeps every file as the run left it: the upstream nodes\' edits untouched, the digest\'s made again', () => {
    expect(SOURCES.map((path) => readFileSync(join(workspace, path), 'utf8'))).toEqual(filesBefore);
    const reverted = after.slice(before.length).filter((event) => event.type === 'file/reverted').map((event) => event.payload.path);
    expect(reverted).toEqual(['src/daily-digest.ts']);
  });

  it('refuses a node the plan does not have, naming the nodes it has', async () => {
    const refused = await dagent('rerun', runId, '--from', 'nope', '--no-dashboard').catch((error: { code: number; stderr: string }) => error);
    expect('code' in refused ? refused.code : 0).toBe(2);
    expect(refused.stderr).toContain('node nope is not in plan v3 of run');
    expect(refused.stderr).toContain('edit-channel, edit-email');
  });
});

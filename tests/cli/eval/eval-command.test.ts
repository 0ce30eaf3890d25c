import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * `dagent eval` on the shipped suite (examples/eval), offline with its scripted models, through the
 * binary: both modes of both tasks run, are verified and measured; every figure of the table is
 * the one the run's own log gives; the results stay in the store for `eval list` and `--compare`.
 */
const exec = promisify(execFile);
const SUITE = join(import.meta.dirname, '..', '..', '..', 'examples', 'eval');

interface Result {
  evalId: string;
  task: string;
  mode: 'plan' | 'react';
  runId: string;
  runStatus: string;
  passed: boolean;
  tokens: { input: number; output: number; cacheHit: number };
  costUsd: number;
  wallMs: number;
  criticalPath: string[];
  criticalPathMs: number | null;
  plannedFiles: string[];
  changedFiles: string[];
  drift: { unplanned: string[]; unwritten: string[] } | null;
  error: string | null;
}
interface LoggedEvent {
  nodeId: string | null;
  type: string;
  payload: { usage?: { input: number; output: number; cacheHit: number }; costUsd?: number };
  createdAt: string;
}

let dir: { dir: string; cleanup: () => void };
let first: { evalId: string; summary: unknown[]; results: Result[] };
let progress: string;

const dagent = async (args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
  exec(process.execPath, [DAGENT_BIN, '-w', dir.dir, ...args], { cwd: dir.dir, env: { ...process.env, NO_COLOR: '1' }, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

const logOf = async (runId: string): Promise<LoggedEvent[]> => (await dagent(['--json', 'log', runId])).stdout.trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);

beforeAll(async () => {
  dir = tempDir('dagent-eval-');
  const ran = await dagent(['--json', 'eval', SUITE]);
  // One react attempt fails its verifier by design: the exit code says not everything passed.
  expect(ran.code, ran.stderr).toBe(1);
  first = JSON.parse(ran.stdout) as typeof first;
  progress = ran.stderr;
}, 300_000);

afterAll(() => dir?.cleanup());

describe('dagent eval on the shipped suite', () => {
  it('runs each task in both modes and says which passed their verifier, with plain progress lines off a terminal', () => {
    expect(first.results.map((result) => `${result.task} ${result.mode} ${result.passed ? 'pass' : 'fail'}`)).toEqual([
      'extract-constant plan pass',
      'extract-constant react fail',
      'rename-function plan pass',
      'rename-function react pass',
    ]);
    expect(first.summary).toEqual([expect.objectContaining({ mode: 'plan', attempts: 2, passed: 2 }), expect.objectContaining({ mode: 'react', attempts: 2, passed: 1 })]);
    expect(progress.trim().split('\n').map((line) => line.split(':')[0])).toEqual(['1/4 extract-constant · plan #1', '2/4 extract-constant · react #1', '3/4 rename-function · plan #1', '4/4 rename-function · react #1']);
  });

  it("says why an attempt failed: the verifier's exit code and the line of its output that names the error", () => {
    const failed = first.results.find((result) => !result.passed)!;
    const why = 'the verifier exited with 1: AssertionError [ERR_ASSERTION]: src/invoice.js uses VAT_RATE';

    expect(failed.error).toBe(why);
    expect(progress).toContain(`2/4 extract-constant · react #1: fail (${why}) · `);
    expect(first.results.filter((result) => result.passed).map((result) => result.error)).toEqual([null, null, null]);
  });

  it('gives the tokens, cost and wall time the log of each run gives', async () => {
    for (const result of first.results) {
      const log = await logOf(result.runId);
      const calls = log.filter((event) => event.type === 'assistant/message');
      expect(calls.length, result.runId).toBeGreaterThan(0);
      expect(result.tokens, result.runId).toEqual({
        input: calls.reduce((sum, event) => sum + (event.payload.usage?.input ?? 0), 0),
        output: calls.reduce((sum, event) => sum + (event.payload.usage?.output ?? 0), 0),
        cacheHit: calls.reduce((sum, event) => sum + (event.payload.usage?.cacheHit ?? 0), 0),
      });
      expect(result.costUsd).toBeCloseTo(calls.reduce((sum, event) => sum + (event.payload.costUsd ?? 0), 0), 9);
      const end = log.find((event) => event.type === 'run/succeeded' || event.type === 'run/failed')!;
      expect(result.runStatus).toBe(end.type.slice('run/'.length));
      expect(result.wallMs).toBe(Date.parse(end.createdAt) - Date.parse(log[0]!.createdAt));
    }
  }, 120_000);

  it('gives a planned run its critical path, timed by the log, and its plan drift', async () => {
    const rename = first.results.find((result) => result.task === 'rename-function' && result.mode === 'plan')!;
    expect(rename.criticalPath[0]).toBe('edit-math');
    expect(rename.criticalPath).toHaveLength(2);
    const log = await logOf(rename.runId);
    const took = (node: string): number => {
      const started = log.find((event) => event.nodeId === node && event.type === 'node/started')!;
      const ended = log.find((event) => event.nodeId === node && event.type === 'node/succeeded')!;
      return Date.parse(ended.createdAt) - Date.parse(started.createdAt);
    };
    expect(rename.criticalPathMs).toBe(rename.criticalPath.reduce((sum, node) => sum + took(node), 0));
    expect(rename.plannedFiles).toEqual(['CHANGELOG.md', 'src/cart.js', 'src/math.js', 'src/stats.js']);
    expect(rename.changedFiles).toEqual(['src/cart.js', 'src/math.js', 'src/stats.js']);
    expect(rename.drift).toEqual({ unplanned: [], unwritten: ['CHANGELOG.md'] });
    const react = first.results.find((result) => result.task === 'extract-constant' && result.mode === 'react')!;
    expect(react).toMatchObject({ criticalPath: [], criticalPathMs: null, drift: null, changedFiles: ['src/prices.js', 'src/vat.js'] });
  }, 60_000);

  it('keeps the results in the store: eval list shows them, --compare sets two evaluations side by side', async () => {
    const second = await dagent(['--json', 'eval', SUITE, '--mode', 'react', '--label', 'baseline only']);
    const secondId = (JSON.parse(second.stdout) as { evalId: string }).evalId;
    const listed = await dagent(['eval', 'list']);
    expect(listed.stdout).toContain(`${first.evalId}  `);
    expect(listed.stdout).toMatch(new RegExp(`${secondId} .*\\[baseline only\\].* react 1/2`));
    const stored = JSON.parse((await dagent(['--json', 'eval', 'list'])).stdout) as { evalId: string; results: Result[] }[];
    expect(stored.find((entry) => entry.evalId === first.evalId)?.results).toEqual(first.results);
    const compared = await dagent(['eval', '--compare', first.evalId, secondId]);
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toContain('| extract-constant | plan | 1/1 → – |');
    expect(compared.stdout).toContain('| rename-function | react | 1/1 → 1/1 |');
  }, 240_000);

  it('takes one task\'s own folder as a suite of that task', async () => {
    const one = await dagent(['--json', 'eval', join(SUITE, 'rename-function'), '--mode', 'react']);

    expect(one.code, one.stderr).toBe(0);
    expect((JSON.parse(one.stdout) as { results: { task: string }[] }).results.map((result) => result.task)).toEqual(['rename-function']);
  }, 120_000);
});


import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * The command line through the built binary, as a newcomer meets it: a mistyped command is named
 * as one, `--no-dashboard` works wherever a plan runs, the hint after a plan says what really
 * comes next, and a database that cannot be reached is the environment's fault (exit 2) with the
 * URL (its password hidden) and what to do.
 */

let workspace: string;
let home: string;
let cleanup: () => void;

beforeEach(() => {
  const made = tempDir('dagent-cli-agrees-');
  cleanup = made.cleanup;
  workspace = join(made.dir, 'repo');
  home = join(made.dir, 'home');
  mkdirSync(workspace);
  mkdirSync(home);
});
afterEach(() => cleanup());

vi.setConfig({ testTimeout: 120_000 });

function dagent(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' }, timeout: 90_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function writePlan(plan: unknown): void {
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify(plan));
}

describe('the command line', () => {
  it('names an unknown command as one, with a near miss and where the commands are listed', () => {
    const unknown = dagent('frobnicate');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toBe('dagent: unknown command frobnicate: `dagent --help` lists the commands');

    const nearMiss = dagent('statsu');
    expect(nearMiss.status).toBe(2);
    expect(nearMiss.stderr.trim()).toBe('dagent: unknown command statsu (did you mean status?): `dagent --help` lists the commands');
  });

  // Each refused in one line (exit 2) that names what is wrong and where to look.
  it.each([
    ['a missing run id', ['run'], "dagent: missing the run id: dagent run <run> (`dagent status` lists this workspace's runs)"],
    ['a missing positional', ['import', 'r-1'], 'dagent: missing <file>: dagent import <run> <file> (`dagent import --help` says more)'],
    ['a missing node flag', ['rerun', 'r-1'], "dagent: missing --from NODE: `dagent status RUN` lists the run's nodes"],
    ['a flag the command does not take', ['run', 'r-1', '--frob'], 'dagent: run does not take --frob: dagent run <run> (`dagent run --help` lists its flags)'],
    ['a word beyond the positionals', ['log', 'r-1', 'extra'], 'dagent: log does not take extra: dagent log <run> (`dagent log --help` lists its flags)'],
    ['an option value outside its choices', ['--approval', 'sometimes', 'status'], 'dagent: --approval must be one of auto, suggest, never, not "sometimes"'],
    ['an option without its value', ['scan', '--importers'], 'dagent: --importers needs a value: `dagent scan --help` says what it takes'],
    ['a plan file flag without its file', ['plan', '--from'], 'dagent: --from needs a value: `dagent plan --help` says what it takes'],
    ['a node flag without its node', ['diff', 'r-1', '--node'], 'dagent: --node needs a value: `dagent diff --help` says what it takes'],
    ['a positional outside its choices', ['memory', 'frob'], 'dagent: <action> must be one of add, list, search, rm, not "frob"'],
    ['a worker on a SQLite store', ['worker'], 'dagent: a worker takes its nodes from a PostgreSQL store: --db postgres://… or DAGENT_DB, the store the runs were planned in'],
    ['a plan file that is not there', ['plan', '--from', 'no-such-plan.json'], 'dagent: cannot read plan file no-such-plan.json: no such file (ENOENT)'],
    ['an unknown run to the dashboard, with no terminal either', ['dashboard', 'r-zzzz'], 'dagent: unknown run "r-zzzz": `dagent status` lists the runs of this workspace'],
  ])('refuses %s, saying what and where', (_what, args, message) => {
    const result = dagent(...args);

    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(message);
  });

  it('takes --no-dashboard on plan --yes, as on run, and prints progress lines', () => {
    writePlan({ goal: 'Say hello', nodes: [{ id: 'hello', kind: 'command', title: 'Say hello', command: 'echo hello > hello.txt' }] });

    const result = dagent('--no-sandbox', 'plan', '--from', 'plan.json', '--yes', '--no-dashboard');

    expect(result.stderr).not.toContain('Unknown argument');
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/✓ hello/);
  });

  it('refuses plan --yes of a plan whose nodes have no model to run on before it stores a run', () => {
    writePlan({ goal: 'Look twice', nodes: [{ id: 'look', kind: 'read', title: 'Look', instructions: 'Look.' }, { id: 'check', kind: 'command', title: 'Check', command: 'true' }] });

    const result = dagent('plan', '--from', 'plan.json', '--yes', '--no-dashboard');

    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toMatch(/^dagent: no model configured: .* \(the plan's look calls one\); nothing was stored$/);
    expect(dagent('status').stdout.trim()).toBe('no runs yet: `dagent plan "<task>"` starts one');
  });

  it('after a plan with lint errors, says what to fix instead of approve && run', () => {
    writePlan({ goal: 'Check the notes', nodes: [{ id: 'check', kind: 'command', title: 'Check the notes', command: 'echo checked', reads: ['notes/release.md'] }] });

    const result = dagent('plan', '--from', 'plan.json');

    expect(result.status, result.stderr).toBe(0);
    const next = result.stdout.split('\n').find((line) => line.startsWith('next:'));
    expect(next).toMatch(/^next: the lint error above stops `approve`: fix the plan \(dagent edit r-\w+\), or approve it anyway with dagent approve r-\w+ --allow-lint missing-file$/);
    expect(next).not.toContain('&& dagent run');
  });

  it('after a clean plan, says approve && run', () => {
    writePlan({ goal: 'Say hello', nodes: [{ id: 'hello', kind: 'command', title: 'Say hello', command: 'echo hello' }] });

    const result = dagent('plan', '--from', 'plan.json');

    expect(result.stdout).toMatch(/^next: dagent approve (r-\w+) && dagent run \1/m);
  });

  it('an unreachable PostgreSQL is an environment error: exit 2, the URL without its password, what to do', () => {
    const result = dagent('--db', 'postgres://dagent:s3cret-pw@127.0.0.1:1/runs', 'status');

    expect(result.status).toBe(2);
    expect(result.stderr).toContain('cannot reach the PostgreSQL database postgres://dagent:***@127.0.0.1:1/runs');
    expect(result.stderr).toContain('start the server, or name another database with --db URL or DAGENT_DB');
    expect(result.stderr).not.toContain('s3cret-pw');
  });
});

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { spawnCli, type CliExit, type CliProcess } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * A temporary workspace for the stories of a run stopped halfway through a node and resumed: one
 * edit node, `steps`, whose scripted turns write its files one step at a time, and the log read
 * back from the run's database after each command.
 */

export interface Row {
  readonly seq: number;
  readonly node_id: string | null;
  readonly type: string;
  readonly step: number;
  readonly payload: string;
}

/** The plan every story runs: one node that may write the files its turns write. */
export const STEPS_PLAN = {
  goal: 'Write three files, one step at a time',
  nodes: [{ id: 'steps', kind: 'edit', title: 'Write the files', instructions: 'Write out/one.txt, out/two.txt and out/three.txt.', reads: [], writes: ['out/one.txt', 'out/two.txt', 'out/three.txt', 'out/partial.txt', 'out/late.txt'], dependsOn: [] }],
};

/** A scripted turn that writes `path` with call id `id`. */
export function write(path: string, content: string, id: string): { toolCalls: { id: string; name: string; args: Record<string, string> }[] } {
  return { toolCalls: [{ id, name: 'write_file', args: { path, content } }] };
}

export interface ResumeWorkspace {
  /** The temporary folder (HOME of every CLI run here). */
  readonly dir: string;
  /** The repository the run works in. */
  readonly workspace: string;
  readonly planFile: string;
  /** A git repository with one commit of what is there. */
  gitInit(): void;
  /** Writes `.dagent/config.json` with `isolation` (a git repository's default is a worktree per node). */
  isolation(mode: 'shared' | 'worktree'): void;
  /** The scripted model's turns for node `steps`. */
  writeScript(turns: readonly unknown[]): void;
  /** The model, approval and any more flags of every run here. */
  flags(...more: string[]): string[];
  spawn(args: readonly string[], env?: NodeJS.ProcessEnv): CliProcess;
  dagent(...args: string[]): Promise<CliExit>;
  readEvents(): Row[];
  /** The events of node `steps` of `type`. */
  nodeEvents(type: string): Row[];
  runId(): string;
  cleanup(): void;
}

export function resumeWorkspace(prefix: string): ResumeWorkspace {
  const temp = tempDir(prefix);
  const workspace = join(temp.dir, 'repo');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'README.md'), '# a repository\n');
  const scriptFile = join(temp.dir, 'script.json');
  const planFile = join(temp.dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(STEPS_PLAN));
  const database = join(workspace, '.dagent', 'dagent.db');
  const readEvents = (): Row[] => {
    if (!existsSync(database)) return [];
    const db = new BetterSqlite3(database, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      return db.prepare<[], Row>('SELECT seq, node_id, type, step, payload FROM events ORDER BY seq').all();
    } catch {
      return [];
    } finally {
      db.close();
    }
  };
  const spawn = (args: readonly string[], env: NodeJS.ProcessEnv = {}): CliProcess => spawnCli(args, workspace, { env: { HOME: temp.dir, ...env } });
  return {
    dir: temp.dir,
    workspace,
    planFile,
    gitInit() {
      const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=dagent test', '-c', 'user.email=test@dagent.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, stdio: 'ignore' });
      git('init', '-q');
      git('add', '-A');
      git('commit', '-q', '-m', 'before the run');
    },
    isolation(mode) {
      mkdirSync(join(workspace, '.dagent'), { recursive: true });
      writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ isolation: mode }));
    },
    writeScript(turns) {
      writeFileSync(scriptFile, JSON.stringify({ agents: { 'node:steps': turns } }));
    },
    flags: (...more) => ['--model', `scripted:${scriptFile}`, '--approval', 'auto', ...more],
    spawn,
    dagent: (...args) => spawn(args).exited,
    readEvents,
    nodeEvents: (type) => readEvents().filter((event) => event.node_id === 'steps' && event.type === type),
    runId() {
      const db = new BetterSqlite3(database, { readonly: true, fileMustExist: true });
      try {
        return db.prepare<[], { id: string }>('SELECT id FROM runs').get()!.id;
      } finally {
        db.close();
      }
    },
    cleanup: () => temp.cleanup(),
  };
}

/** Waits until the log holds an event `found` accepts while `cli` runs (timed by the log, never by a sleep). */
export async function waitForLog(cli: CliProcess, events: () => readonly Row[], found: (events: readonly Row[]) => boolean): Promise<void> {
  while (!cli.hasExited() && !found(events())) await sleep(20);
  if (cli.hasExited()) throw new Error(`the run ended before the test stopped it: ${describeExit(await cli.exited)}`);
}

export function describeExit(exit: CliExit): string {
  return `exit ${exit.code ?? exit.signal}\n--- stdout ---\n${exit.stdout.slice(-3000)}\n--- stderr ---\n${exit.stderr.slice(-3000)}`;
}

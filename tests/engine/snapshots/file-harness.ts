import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EventLog, FileSnapshots, createRun, type Store, type WriteScope } from '../../../engine/index.js';
import { openTempStore, tempDir } from '../../helpers/temp-store.js';

/** A run over a real temporary workspace (optionally a git repository with one commit), its store and its snapshots. */
export interface SnapshotHarness {
  readonly store: Store;
  readonly runId: string;
  readonly workspace: string;
  readonly snapshots: FileSnapshots;
  readonly log: EventLog;
  /** Writes a file directly, the way a command would. */
  put(path: string, content: string | Buffer): void;
  read(path: string): string | undefined;
  readBytes(path: string): Buffer | undefined;
  /** Writes a file the way the write tools do: check the scope, snapshot, then write. */
  toolWrite(scope: WriteScope, path: string, content: string | Buffer): Promise<void>;
  /** Appends `node/started` so the run knows the node. */
  startNode(nodeId: string, attempt?: number): Promise<void>;
  git(...args: string[]): string;
  cleanup(): Promise<void>;
}

export interface HarnessOptions {
  readonly files?: Readonly<Record<string, string | Buffer>>;
  /** Make the workspace a git repository and commit `files` (plus `.gitignore` when given). */
  readonly git?: boolean;
  /** Watch the git workspace (the default) or scan it at every boundary. */
  readonly watch?: boolean;
  /** Store ahead what git ignores in a node's writes (the default), or not (a react run's snapshots). */
  readonly snapshotIgnored?: boolean;
  /** Without git, scan at a node's first command instead of its begin (a react run's snapshots). */
  readonly deferScan?: boolean;
}

export async function openSnapshotHarness(options: HarnessOptions = {}): Promise<SnapshotHarness> {
  const temp = await openTempStore();
  const workspace = tempDir('dagent-workspace-');
  const put = (path: string, content: string | Buffer): void => {
    const target = join(workspace.dir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  };
  for (const [path, content] of Object.entries(options.files ?? {})) put(path, content);
  const git = (...args: string[]): string => gitIn(workspace.dir, args);
  if (options.git === true) {
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'Test User');
    git('config', 'user.email', 'test@example.com');
    git('config', 'commit.gpgsign', 'false');
    git('add', '-A');
    git('commit', '-q', '-m', 'initial');
  }
  const run = await createRun(temp.store.db, { task: 'refactor', workspace: workspace.dir, mode: 'plan' });
  let tick = 0;
  const now = (): Date => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++));
  const log = new EventLog(temp.store.db, run.id, { now });
  const snapshots = new FileSnapshots({ db: temp.store.db, runId: run.id, workspace: workspace.dir, now, git: options.git === true ? undefined : false, ...(options.watch === undefined ? {} : { watch: options.watch }), ...(options.snapshotIgnored === undefined ? {} : { snapshotIgnored: options.snapshotIgnored }), ...(options.deferScan === undefined ? {} : { deferScan: options.deferScan }) });
  return {
    store: temp.store,
    runId: run.id,
    workspace: workspace.dir,
    snapshots,
    log,
    put,
    read: (path) => (existsSync(join(workspace.dir, path)) ? readFileSync(join(workspace.dir, path), 'utf8') : undefined),
    readBytes: (path) => (existsSync(join(workspace.dir, path)) ? readFileSync(join(workspace.dir, path)) : undefined),
    async toolWrite(scope, path, content) {
      const refusal = scope.check(path);
      if (refusal !== undefined) throw new Error(refusal);
      await scope.beforeWrite(path);
      put(path, content);
    },
    async startNode(nodeId, attempt = 1) {
      await log.append({ type: 'node/started', nodeId, payload: { attempt } });
    },
    git,
    async cleanup() {
      await snapshots.close();
      await temp.cleanup();
      workspace.cleanup();
    },
  };
}

/** Runs git in `cwd` without the caller's GIT_* variables; never writes optional locks (so `status` leaves the index alone). */
export function gitIn(cwd: string, args: readonly string[]): string {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  env.GIT_OPTIONAL_LOCKS = '0';
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' });
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A store's snapshot rows for a run, raw, by node then path. */
export async function snapshotRows(store: Store, runId: string) {
  return store.db.selectFrom('file_snapshots').selectAll().where('run_id', '=', runId).orderBy('node_id').orderBy('path').execute();
}

import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ConfigError, WORKSPACE_CONFIG_FILE, openDatabase, resolveConfig, secretsFromConfig, secretsFromEnvironment, type BusyNotice, type DagentConfig, type Store } from '../../engine/read-face.js';
import { writeLine, type CliIo } from './cli-io.js';
import { findWorkspaceRoot } from './workspace-root.js';

/** The global options of the CLI contract. */
export interface GlobalOptions {
  readonly workspace?: string;
  readonly db?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly approval?: 'auto' | 'suggest' | 'never';
  readonly json?: boolean;
  /** `--no-sandbox`: run commands without the OS sandbox. */
  readonly sandbox?: boolean;
}

/**
 * The composition root's state for one CLI invocation: the resolved workspace, settings (see
 * `resolveConfig`) and the store, opened on first use.
 */
export class CliContext {
  readonly io: CliIo;
  readonly workspace: string;
  #config: DagentConfig;
  readonly json: boolean;
  /** Settings of the workspace's own config file left out until the user trusts it (`dagent trust`). */
  readonly untrustedKeys: readonly string[];
  /** Whether `--workspace` was given (else the workspace was found from the current folder). */
  readonly workspaceGiven: boolean;
  #store: Store | undefined;
  /** The store is another context's (`shareStoreOf`): closing this context leaves it open. */
  #storeShared = false;
  readonly #closers: (() => Promise<void>)[] = [];

  constructor(io: CliIo, options: GlobalOptions) {
    this.io = io;
    this.workspaceGiven = options.workspace !== undefined;
    this.workspace = options.workspace === undefined ? findWorkspaceRoot(io.cwd) : resolve(io.cwd, options.workspace);
    if (!existsSync(this.workspace)) throw new ConfigError(`workspace ${this.workspace} does not exist`);
    if (!statSync(this.workspace).isDirectory()) throw new ConfigError(`workspace ${this.workspace} is not a directory`);
    const flags: DagentConfig = {
      ...(options.db === undefined ? {} : { db: options.db }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.baseUrl === undefined ? {} : { baseUrl: checkedBaseUrl(options.baseUrl) }),
      ...(options.approval === undefined ? {} : { approval: options.approval }),
      ...(options.sandbox === false ? { sandbox: { enabled: false } } : {}),
    };
    const resolved = resolveConfig({ workspace: this.workspace, env: io.env, flags });
    this.#config = resolved.config;
    if (this.#config.baseUrl !== undefined) checkedBaseUrl(this.#config.baseUrl);
    this.json = options.json ?? false;
    this.untrustedKeys = resolved.untrustedKeys;
    if (resolved.untrustedKeys.length > 0) {
      writeLine(
        io.stderr,
        `dagent: ${join(this.workspace, WORKSPACE_CONFIG_FILE)} sets ${resolved.untrustedKeys.join(', ')}; ignored until you trust this workspace (\`dagent trust\`)`,
      );
      if (resolved.untrustedKeys.includes('hooks')) writeLine(io.stderr, 'dagent: its hooks do not run: they would run commands the repository chose; read them, then `dagent trust`');
    }
    if (resolved.loosenedLimits.length > 0) {
      writeLine(
        io.stderr,
        `dagent: ${join(this.workspace, WORKSPACE_CONFIG_FILE)} would loosen your limits (${resolved.loosenedLimits.join(', ')}); a repository may only tighten them, so yours are kept (allowWorkspaceToLoosenLimits: true in your own config allows it)`,
      );
    }
    if (resolved.raisedBudget.length > 0) {
      writeLine(io.stderr, `dagent: ${join(this.workspace, WORKSPACE_CONFIG_FILE)} would raise your budget (${resolved.raisedBudget.join(', ')}); a repository may only lower a budget, so yours is kept`);
    }
  }

  get config(): DagentConfig {
    return this.#config;
  }

  /**
   * The models a run was planned with (`RunRecord.config`), for the roles no flag, variable or
   * config file names: `dagent run` uses the model the plan was made with unless told otherwise.
   */
  adoptRunModels(recorded: Readonly<Record<string, unknown>>): void {
    const adopted: DagentConfig = {};
    for (const key of ['model', 'plannerModel'] as const) {
      const value = recorded[key];
      if (typeof value === 'string' && this.#config[key] === undefined) adopted[key] = value;
    }
    // A planner that only followed the recorded model follows the model named now (`run -m X` replans with X too);
    // one chosen on its own (`plannerModel`) stays.
    if (this.#config.model !== undefined && recorded.plannerModel === recorded.model) delete adopted.plannerModel;
    this.#config = { ...this.#config, ...adopted };
  }

  /** The database URL: `--db`, `DAGENT_DB`, config, or `<workspace>/.dagent/dagent.db`. */
  get dbUrl(): string {
    const url = this.config.db;
    if (url === undefined) return join(this.workspace, '.dagent', 'dagent.db');
    if (/^[a-z]+:\/\//.test(url) || url.startsWith('sqlite:') || url === ':memory:' || isAbsolute(url)) return url;
    return resolve(this.io.cwd, url);
  }

  async store(): Promise<Store> {
    if (this.#store === undefined) {
      if (this.config.db === undefined) ignoreStateFolder(join(this.workspace, '.dagent'));
      else checkDatabaseFolder(this.dbUrl);
    }
    const busyTimeoutMs = Number(this.io.env.DAGENT_BUSY_TIMEOUT_MS);
    const secrets = this.#storeSecrets();
    const onBusy = (notice: BusyNotice): void =>
      writeLine(
        this.io.stderr,
        notice.state === 'waiting'
          ? `dagent: the database ${this.dbUrl} is locked by another program; waiting for it (retrying with backoff; nothing is lost)`
          : `dagent: the database is free again after ${Math.round(notice.waitedMs / 1000)} s; continuing`,
      );
    this.#store ??= await openDatabase(this.dbUrl, { secrets, onBusy, ...(Number.isFinite(busyTimeoutMs) && busyTimeoutMs > 0 ? { busyTimeoutMs } : {}) });
    return this.#store;
  }

  /**
   * Uses `owner`'s store (opening it if need be) instead of opening one of its own, when it is the
   * same database and its writes are redacted of every secret this context's would be; else
   * nothing changes and this context opens its own on first use. Closing this context leaves a
   * shared store open. A worker's runs share the worker's: one pool of connections, already open
   * and warm, instead of a second pool that opened its connections in the middle of a stage.
   */
  async shareStoreOf(owner: CliContext): Promise<boolean> {
    if (this.#store !== undefined || owner.dbUrl !== this.dbUrl) return false;
    const redacted = new Set(owner.#storeSecrets());
    if (!this.#storeSecrets().every((secret) => redacted.has(secret))) return false;
    this.#store = await owner.store();
    this.#storeShared = true;
    return true;
  }

  /** The values this context's store redacts from every write: the environment's and the configured ones. */
  #storeSecrets(): string[] {
    return [...secretsFromEnvironment(this.io.env), ...secretsFromConfig(this.config)];
  }

  /**
   * The store for a command that only reads runs (`status`, `log`, `show`, …). Where the workspace
   * has no database yet, an empty one in memory: such a command finds no runs and creates nothing
   * (no `.dagent/` in a folder the user only looked at).
   */
  async readStore(): Promise<Store> {
    if (this.#store === undefined && this.config.db !== undefined) checkDatabaseFolder(this.dbUrl);
    if (this.#store === undefined && !databaseExists(this.dbUrl)) this.#store = await openDatabase(':memory:');
    return this.store();
  }

  /** Runs `closer` when the invocation ends (before the store closes): MCP servers, for one. */
  onClose(closer: () => Promise<void>): void {
    this.#closers.push(closer);
  }

  async close(): Promise<void> {
    await Promise.all(this.#closers.splice(0).map((closer) => closer().catch(() => undefined)));
    if (!this.#storeShared) await this.#store?.close();
    this.#store = undefined;
    this.#storeShared = false;
  }
}

/** `--base-url` must be an http(s) URL: a typo fails here, not as a connection error mid-run. */
function checkedBaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`invalid base URL "${url}": expected http://HOST[:PORT]/PATH or https://…`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`invalid base URL "${url}": only http and https are supported`);
  return url;
}

/** Whether `url` names a database that is there: a server's always is (it answers or fails when opened). */
function databaseExists(url: string): boolean {
  if (/^[a-z]+:\/\//.test(url) || url === ':memory:') return true;
  return existsSync(url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url);
}

/** A SQLite file may be new, but the folder it goes in must exist: a typo does not make folders. */
function checkDatabaseFolder(url: string): void {
  if (/^[a-z]+:\/\//.test(url) || url === ':memory:') return;
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  const folder = dirname(path);
  if (!existsSync(folder)) throw new ConfigError(`database folder ${folder} does not exist (--db ${url})`);
  // SQLite writes `<path>-journal` and `-wal` beside the file: a device or a folder is no database (as root, `/dev/null` would get a `/dev/null-journal`).
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat !== undefined && !stat.isFile()) throw new ConfigError(`--db ${url} is not a regular file (a ${stat.isDirectory() ? 'folder' : 'device or special file'}): name a database file, new or existing`);
}

/** `.dagent/` holds the database and snapshots: keep it out of the user's git status. */
function ignoreStateFolder(folder: string): void {
  const ignore = join(folder, '.gitignore');
  if (existsSync(ignore)) return;
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(ignore, '# dagent state: the run database and file snapshots\n*\n');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigError(`cannot write dagent's state folder ${folder} (${code}): is the workspace read-only? --db puts the database elsewhere`);
  }
}

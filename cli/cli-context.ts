import { resolve, join, isAbsolute } from 'node:path';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { ConfigError, openDatabase, secretsFromEnvironment, type Store } from '../engine/index.js';
import type { CliIo } from './cli-io.js';
import { configFromEnv, loadConfigFile, type DagentConfig } from './config.js';

/** The global options of the CLI contract. */
export interface GlobalOptions {
  readonly workspace?: string;
  readonly db?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly approval?: 'auto' | 'suggest' | 'never';
  readonly json?: boolean;
}

/**
 * The composition root's state for one CLI invocation: the resolved workspace, settings
 * (config file < environment < flags) and the store, opened on first use.
 */
export class CliContext {
  readonly io: CliIo;
  readonly workspace: string;
  readonly config: DagentConfig;
  readonly json: boolean;
  #store: Store | undefined;

  constructor(io: CliIo, options: GlobalOptions) {
    this.io = io;
    this.workspace = resolve(io.cwd, options.workspace ?? '.');
    if (!existsSync(this.workspace) || !statSync(this.workspace).isDirectory()) {
      throw new ConfigError(`workspace ${this.workspace} is not a directory`);
    }
    const flags: DagentConfig = {
      ...(options.db === undefined ? {} : { db: options.db }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      ...(options.approval === undefined ? {} : { approval: options.approval }),
    };
    this.config = { ...loadConfigFile(this.workspace), ...configFromEnv(io.env), ...flags };
    this.json = options.json ?? false;
  }

  /** The database URL: `--db`, `DAGENT_DB`, config, or `<workspace>/.dagent/dagent.db`. */
  get dbUrl(): string {
    const url = this.config.db;
    if (url === undefined) return join(this.workspace, '.dagent', 'dagent.db');
    if (/^[a-z]+:\/\//.test(url) || url.startsWith('sqlite:') || url === ':memory:' || isAbsolute(url)) return url;
    return resolve(this.io.cwd, url);
  }

  async store(): Promise<Store> {
    if (this.#store === undefined && this.config.db === undefined) ignoreStateFolder(join(this.workspace, '.dagent'));
    const busyTimeoutMs = Number(this.io.env.DAGENT_BUSY_TIMEOUT_MS);
    const secrets = secretsFromEnvironment(this.io.env);
    this.#store ??= await openDatabase(this.dbUrl, { secrets, ...(Number.isFinite(busyTimeoutMs) && busyTimeoutMs > 0 ? { busyTimeoutMs } : {}) });
    return this.#store;
  }

  async close(): Promise<void> {
    await this.#store?.close();
    this.#store = undefined;
  }
}

/** `.dagent/` holds the database and snapshots: keep it out of the user's git status. */
function ignoreStateFolder(folder: string): void {
  const ignore = join(folder, '.gitignore');
  if (existsSync(ignore)) return;
  mkdirSync(folder, { recursive: true });
  writeFileSync(ignore, '# dagent state: the run database and file snapshots\n*\n');
}

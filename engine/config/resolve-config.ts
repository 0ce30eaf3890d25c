import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { WORKSPACE_SAFE_KEYS, parseConfig, type DagentConfig } from './config-schema.js';
import { userConfigPath } from './user-config.js';
import { configHash, isWorkspaceTrusted } from './workspace-trust.js';
import { tightenOnly } from './workspace-limits.js';

/** The workspace's own config file, relative to the workspace. */
export const WORKSPACE_CONFIG_FILE = join('.dagent', 'config.json');

export interface ConfigSources {
  readonly workspace: string;
  readonly env: NodeJS.ProcessEnv;
  /** Settings from the command line. */
  readonly flags: DagentConfig;
}

export interface ResolvedConfig {
  readonly config: DagentConfig;
  /** Keys of the workspace's config file left out because the workspace is not trusted (`dagent trust`). */
  readonly untrustedKeys: readonly string[];
  /** Limits the workspace's config file tried to loosen, as `name: asked → kept`; the user's (or built-in) limit was kept. */
  readonly loosenedLimits: readonly string[];
  /** Budget caps the workspace's config file tried to raise, as `budget.maxCostUsd: asked → kept`; the user's cap was kept. */
  readonly raisedBudget: readonly string[];
}

/**
 * The settings of one invocation, weakest first: the user's config file, the workspace's
 * `.dagent/config.json`, `DAGENT_*` environment variables, flags. The workspace file is written by
 * whoever wrote the repository: until the user trusts it (`trustWorkspace`, keyed by the file's
 * hash), only its WORKSPACE_SAFE_KEYS count. Trusted or not, it can only tighten the user's limits
 * (`tightenOnly`), unless the user's own file says `allowWorkspaceToLoosenLimits: true`.
 */
export function resolveConfig(sources: ConfigSources): ResolvedConfig {
  const userPath = userConfigPath(sources.env);
  const user = userPath === undefined ? {} : readConfigFile(userPath) ?? {};
  const workspacePath = join(sources.workspace, WORKSPACE_CONFIG_FILE);
  const text = readText(workspacePath);
  let workspace: DagentConfig = {};
  let untrustedKeys: string[] = [];
  if (text !== undefined) {
    const parsed = parseConfig(parseJson(text, workspacePath), workspacePath);
    if (isWorkspaceTrusted(sources.env, sources.workspace, configHash(text))) workspace = parsed;
    else {
      const safe = new Set<string>(WORKSPACE_SAFE_KEYS);
      untrustedKeys = Object.keys(parsed).filter((key) => !safe.has(key));
      workspace = Object.fromEntries(Object.entries(parsed).filter(([key]) => safe.has(key))) as DagentConfig;
    }
  }
  const tightened = tightenOnly(workspace, user);
  const hooks = mergeHooks(user.hooks, tightened.config.hooks);
  const config = { ...user, ...tightened.config, ...configFromEnv(sources.env), ...sources.flags };
  return { config: hooks === undefined ? config : { ...config, hooks }, untrustedKeys, loosenedLimits: tightened.loosened, raisedBudget: tightened.raisedBudget };
}

/** The user's hooks, then a (trusted) repository's, per moment: a repository adds hooks, it never takes the user's away. */
function mergeHooks(user: DagentConfig['hooks'], workspace: DagentConfig['hooks']): DagentConfig['hooks'] {
  if (user === undefined || workspace === undefined) return workspace ?? user;
  const merged: Record<string, unknown> = { ...user };
  for (const [event, hooks] of Object.entries(workspace)) merged[event] = [...((user as Record<string, unknown[] | undefined>)[event] ?? []), ...(hooks ?? [])];
  return merged as DagentConfig['hooks'];
}

/** A config file, checked; undefined when it does not exist. */
export function readConfigFile(path: string): DagentConfig | undefined {
  const text = readText(path);
  return text === undefined ? undefined : parseConfig(parseJson(text, path), path);
}

/** Settings from environment variables: `DAGENT_MODEL`, `DAGENT_PLANNER_MODEL`, `DAGENT_DB`, `DAGENT_APPROVAL`, `DAGENT_BASE_URL`, `DAGENT_CONCURRENCY`. */
export function configFromEnv(env: NodeJS.ProcessEnv): DagentConfig {
  const raw: Record<string, unknown> = {};
  if (env.DAGENT_MODEL) raw.model = env.DAGENT_MODEL;
  if (env.DAGENT_PLANNER_MODEL) raw.plannerModel = env.DAGENT_PLANNER_MODEL;
  if (env.DAGENT_DB) raw.db = env.DAGENT_DB;
  if (env.DAGENT_APPROVAL) raw.approval = env.DAGENT_APPROVAL;
  if (env.DAGENT_BASE_URL) raw.baseUrl = env.DAGENT_BASE_URL;
  if (env.DAGENT_CONCURRENCY) raw.concurrency = Number(env.DAGENT_CONCURRENCY);
  return parseConfig(raw, 'environment');
}

function readText(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`);
  }
}

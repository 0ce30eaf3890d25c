import { spawn } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';
import type { WorkspaceLanguageService } from '../../../planners/index.js';
import type { CliContext } from '../../context/cli-context.js';
import { packageRoot } from '../../context/package-root.js';
import { loadPlanners } from '../load-planners.js';
import { workspaceLanguageService } from '../workspace-language-service.js';
import { workspaceRepoMap } from '../workspace-repo-map.js';
import { daemonSocketPath, type LanguageDaemonKey } from './daemon-address.js';
import { readLines, writeLine, type DaemonQuery, type DaemonRequest, type DaemonResponse, type DaemonStatus } from './daemon-protocol.js';

/** Minutes the warm service stays without a query when the config says nothing. */
export const DEFAULT_LANGUAGE_SERVICE_IDLE_MINUTES = 10;
/** How long a CLI waits for a service it started to listen (it listens before it loads TypeScript). */
const START_TIMEOUT_MS = 10_000;

/**
 * The language service for `scan` and the plan lint: the workspace's warm service (started in the
 * background when none runs; `languageServiceIdleMinutes`, 0 to keep TypeScript in this process),
 * asked only after the answer cache missed. Should the service be gone or fail, the question is
 * answered in this process instead: never a failed query because of it.
 */
export async function warmLanguageService(context: CliContext, tsconfig?: string): Promise<WorkspaceLanguageService> {
  const local = (): Promise<WorkspaceLanguageService> => workspaceLanguageService(context, tsconfig);
  const idleMinutes = context.config.languageServiceIdleMinutes ?? DEFAULT_LANGUAGE_SERVICE_IDLE_MINUTES;
  if (idleMinutes <= 0) return local();
  const key: LanguageDaemonKey = { workspace: context.workspace, tsconfig };
  const planners = await loadPlanners();
  let connection: Promise<DaemonConnection | undefined> | undefined;
  const remote = (): Promise<DaemonConnection | undefined> => (connection ??= connectOrStart(key, idleMinutes, context.io.env));
  context.onClose(async () => (await connection)?.close());
  const ask = async (method: DaemonQuery, args: readonly unknown[]): Promise<unknown> => {
    const daemon = await remote();
    const response = daemon === undefined ? undefined : await daemon.request(method, args).catch(() => undefined);
    if (response?.ok === true) return response.result ?? undefined;
    if (response?.ok === false && response.error.kind === 'query') {
      throw new planners.LanguageServiceQueryError(response.error.symbol ?? '', (response.error.reason ?? 'malformed') as 'malformed', response.error.message);
    }
    // No service, or it failed: this process answers.
    const service = (await local()) as unknown as Record<DaemonQuery, (...values: readonly unknown[]) => Promise<unknown>>;
    return service[method](...args);
  };
  const repoMap = () => workspaceRepoMap(context, tsconfig);
  return {
    definition: async (target) => (await ask('definition', [target])) as Awaited<ReturnType<WorkspaceLanguageService['definition']>>,
    references: async (target) => (await ask('references', [target])) as Awaited<ReturnType<WorkspaceLanguageService['references']>>,
    referencingFiles: async (target) => {
      const cached = await planners.cachedReferencingFiles({ workspace: context.workspace, repoMap, ...(tsconfig === undefined ? {} : { tsconfig }) }, target);
      return cached ?? ((await ask('referencingFiles', [target])) as Awaited<ReturnType<WorkspaceLanguageService['referencingFiles']>>);
    },
    workspaceSymbols: async (query, limit) => (await ask('workspaceSymbols', limit === undefined ? [query] : [query, limit])) as Awaited<ReturnType<WorkspaceLanguageService['workspaceSymbols']>>,
    hover: async (target) => (await ask('hover', [target])) as Awaited<ReturnType<WorkspaceLanguageService['hover']>>,
    diagnostics: async (files) => (await ask('diagnostics', files === undefined ? [] : [files])) as Awaited<ReturnType<WorkspaceLanguageService['diagnostics']>>,
    callHierarchy: async (target, direction) => (await ask('callHierarchy', [target, direction])) as Awaited<ReturnType<WorkspaceLanguageService['callHierarchy']>>,
    warnings: async () => (await ask('warnings', [])) as Awaited<ReturnType<WorkspaceLanguageService['warnings']>>,
    dispose() {
      void connection?.then((daemon) => daemon?.close());
    },
  };
}

/** A connection to a warm service: one request at a time, answered in order. */
export interface DaemonConnection {
  request(method: DaemonRequest['method'], args?: readonly unknown[]): Promise<DaemonResponse>;
  close(): void;
}

/** Connects to the workspace's warm service, starting it first when none answers; undefined when it cannot be had. */
async function connectOrStart(key: LanguageDaemonKey, idleMinutes: number, env: NodeJS.ProcessEnv): Promise<DaemonConnection | undefined> {
  const path = daemonSocketPath(key);
  const existing = await connectDaemon(path);
  if (existing !== undefined) return existing;
  startDaemon(key, idleMinutes, env);
  for (const deadline = Date.now() + START_TIMEOUT_MS; Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const connection = await connectDaemon(path);
    if (connection !== undefined) return connection;
  }
  return undefined;
}

/** Starts `dagent language-service --serve` for the workspace, detached: it outlives this command. */
function startDaemon(key: LanguageDaemonKey, idleMinutes: number, env: NodeJS.ProcessEnv): void {
  const args = [join(packageRoot(), 'bin', 'dagent.js'), '--workspace', key.workspace, 'language-service', '--serve', '--idle-minutes', String(idleMinutes)];
  if (key.tsconfig !== undefined) args.push('--tsconfig', key.tsconfig);
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env, cwd: key.workspace });
  child.on('error', () => undefined);
  child.unref();
}

/** A connection to the service listening at the socket, or undefined when none does. */
export async function connectDaemon(path: string): Promise<DaemonConnection | undefined> {
  if (!ownSocket(path)) return undefined;
  const socket = await new Promise<Socket | undefined>((resolve) => {
    const attempt = createConnection(path);
    attempt.once('connect', () => resolve(attempt));
    attempt.once('error', () => resolve(undefined));
  });
  if (socket === undefined) return undefined;
  const waiting = new Map<number, { resolve: (response: DaemonResponse) => void; reject: (error: Error) => void }>();
  let next = 1;
  const failAll = (error: Error): void => {
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  };
  readLines(socket, (message) => {
    const response = message as DaemonResponse;
    waiting.get(response.id)?.resolve(response);
    waiting.delete(response.id);
  });
  socket.on('error', (error) => failAll(error));
  socket.on('close', () => failAll(new Error('the language service closed the connection')));
  socket.unref();
  return {
    request(method, args = []) {
      const id = next++;
      socket.ref();
      return new Promise<DaemonResponse>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        writeLine(socket, { id, method, args });
      }).finally(() => waiting.size === 0 && socket.unref());
    },
    close: () => socket.destroy(),
  };
}

/** Whether the socket exists and is this user's: a socket another user put at the name is never asked (the temporary folder is shared). */
function ownSocket(path: string): boolean {
  try {
    const stats = lstatSync(path);
    return stats.isSocket() && (typeof process.getuid !== 'function' || stats.uid === process.getuid());
  } catch {
    return false;
  }
}

/** The status of the workspace's warm service, or undefined when none runs. */
export function daemonStatus(key: LanguageDaemonKey): Promise<DaemonStatus | undefined> {
  return askDaemon(key, 'status');
}

/** Stops the workspace's warm service; its status as it stopped, or undefined when none ran. */
export function stopDaemon(key: LanguageDaemonKey): Promise<DaemonStatus | undefined> {
  return askDaemon(key, 'stop');
}

/** One `status` or `stop` request to the workspace's warm service; undefined when none answers. */
async function askDaemon(key: LanguageDaemonKey, method: 'status' | 'stop'): Promise<DaemonStatus | undefined> {
  const connection = await connectDaemon(daemonSocketPath(key));
  if (connection === undefined) return undefined;
  try {
    const response = await connection.request(method);
    return response.ok ? (response.result as DaemonStatus) : undefined;
  } catch {
    return undefined;
  } finally {
    connection.close();
  }
}

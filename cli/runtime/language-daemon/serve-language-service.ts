import { existsSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { WorkspaceLanguageService } from '../../../planners/index.js';
import { loadPlanners } from '../load-planners.js';
import { daemonSocketPath, type LanguageDaemonKey } from './daemon-address.js';
import { DAEMON_QUERIES, readLines, writeLine, type DaemonQuery, type DaemonRequest, type DaemonResponse, type DaemonStatus } from './daemon-protocol.js';

/** How often the service looks whether its workspace still exists (a deleted workspace ends it at once). */
const WORKSPACE_CHECK_MS = 2_000;

export interface ServeOptions extends LanguageDaemonKey {
  /** Without a query for this long, it exits. */
  readonly idleMs: number;
}

/**
 * The warm language service: one process per workspace (and tsconfig) that keeps TypeScript's
 * projects loaded between CLI invocations, so `scan --importers FILE#Class.member` and the plan
 * lint of a member change pay the compiler once. It answers on a Unix socket (`daemonSocketPath`),
 * one query at a time, each against the files as they are on disk when it is asked (file versions
 * by mtime and size, the import graph scanned again per query through the scan cache), and
 * exits after `idleMs` without a query, when its workspace is gone, on `stop` or on SIGTERM.
 * Resolves when it has stopped; false when another service already answers for the workspace.
 */
export async function serveLanguageService(options: ServeOptions): Promise<boolean> {
  const path = daemonSocketPath(options);
  const planners = await loadPlanners();
  const service = planners.createLanguageService({ workspace: options.workspace, ...(options.tsconfig === undefined ? {} : { tsconfig: options.tsconfig }) });
  const server = createServer();
  // Only this user may connect: the socket is made without permissions for group and others.
  const umask = process.umask(0o077);
  const listening = await listen(server, path);
  process.umask(umask);
  if (!listening) {
    service.dispose();
    return false;
  }
  const status = { pid: process.pid, workspace: options.workspace, tsconfig: options.tsconfig ?? null, startedAt: new Date().toISOString(), queries: 0, idleMs: options.idleMs };
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => (stopped = resolve));
  let idle: NodeJS.Timeout | undefined;
  const stop = (): void => {
    clearTimeout(idle);
    clearInterval(watch);
    server.close();
    rmSync(path, { force: true });
    service.dispose();
    stopped();
  };
  const restartIdle = (): void => {
    clearTimeout(idle);
    idle = setTimeout(stop, options.idleMs);
  };
  const watch = setInterval(() => existsSync(options.workspace) || stop(), WORKSPACE_CHECK_MS);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // One query at a time, in the order asked: TypeScript's service is not re-entrant.
  let queue = Promise.resolve();
  server.on('connection', (socket: Socket) => {
    readLines(socket, (message) => {
      const request = message as DaemonRequest;
      // Only a query is use: asking for the status (a script polling it) does not keep the service alive.
      const query = request.method !== 'status' && request.method !== 'stop';
      if (query) clearTimeout(idle);
      // A question that could not be answered or written back (its asker gone) ends only itself:
      // a rejection here would end the service for the queries after it.
      queue = queue
        .then(async () => {
          const response = await answer(service, request, status);
          if (!socket.destroyed) writeLine(socket, response);
        })
        .catch(() => {
          socket.destroy();
        })
        .finally(() => {
          if (request.method === 'stop') stop();
          else if (query) restartIdle();
        });
    });
    socket.on('error', () => socket.destroy());
  });
  restartIdle();
  await done;
  return true;
}

async function answer(service: WorkspaceLanguageService, request: DaemonRequest, status: { queries: number } & Omit<DaemonStatus, 'queries'>): Promise<DaemonResponse> {
  if (request.method === 'status' || request.method === 'stop') return { id: request.id, ok: true, result: { ...status } satisfies DaemonStatus };
  if (!(DAEMON_QUERIES as readonly string[]).includes(request.method)) return { id: request.id, ok: false, error: { kind: 'internal', message: `unknown query ${String(request.method)}` } };
  status.queries += 1;
  try {
    const query = service[request.method as DaemonQuery] as (...args: readonly unknown[]) => Promise<unknown>;
    return { id: request.id, ok: true, result: (await query.apply(service, [...request.args])) ?? null };
  } catch (error) {
    const planners = await loadPlanners();
    if (error instanceof planners.UnknownSymbolError) return { id: request.id, ok: false, error: { kind: 'query', message: error.message, symbol: error.symbol, reason: error.reason } };
    return { id: request.id, ok: false, error: { kind: 'internal', message: error instanceof Error ? error.message : String(error) } };
  }
}

/**
 * Listens on the socket; false when another service answers there already. A socket file left by
 * a service that was killed is taken over.
 */
async function listen(server: Server, path: string): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once('error', resolve);
      server.listen(path, () => {
        server.off('error', resolve);
        resolve(undefined);
      });
    });
    if (error === undefined) return true;
    if (error.code !== 'EADDRINUSE' || (await answers(path))) return false;
    rmSync(path, { force: true });
  }
  return false;
}

/** Whether something accepts connections at the socket. */
export function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

import type { Socket } from 'node:net';

/** The queries the warm service answers: the language service's own, by name. */
export const DAEMON_QUERIES = ['definition', 'references', 'referencingFiles', 'workspaceSymbols', 'hover', 'diagnostics', 'callHierarchy', 'warnings'] as const;
export type DaemonQuery = (typeof DAEMON_QUERIES)[number];

/** One line from a client: a query with its arguments, or `status` / `stop`. */
export interface DaemonRequest {
  readonly id: number;
  readonly method: DaemonQuery | 'status' | 'stop';
  readonly args: readonly unknown[];
}

/** What `status` answers. */
export interface DaemonStatus {
  readonly pid: number;
  readonly workspace: string;
  readonly tsconfig: string | null;
  readonly startedAt: string;
  readonly queries: number;
  /** How long it stays without a query before it exits. */
  readonly idleMs: number;
}

/** One line back: the result, or the query's error (`query` when the question was bad: a file outside the workspace, an unknown symbol). */
export type DaemonResponse =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: { readonly kind: 'query' | 'internal'; readonly message: string; readonly symbol?: string; readonly reason?: string } };

/** Reads newline-delimited JSON from a socket: each whole line to `onMessage` (JSON text never holds a raw newline). */
export function readLines(socket: Socket, onMessage: (message: unknown) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (line.trim() === '') continue;
      let message: unknown;
      try {
        message = JSON.parse(line) as unknown;
      } catch {
        socket.destroy(new Error('the language service and dagent do not speak the same lines'));
        return;
      }
      onMessage(message);
    }
  });
}

export function writeLine(socket: Socket, message: DaemonRequest | DaemonResponse): void {
  socket.write(`${JSON.stringify(message)}\n`);
}

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One canned answer of the loopback server. */
export interface LoopbackResponse {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Cut the body into pieces of this many bytes, written one at a time (UTF-8 characters may be split). */
  readonly splitEvery?: number;
  /** After the body, keep the connection open and silent (a stalled stream). */
  readonly stall?: boolean;
  /** After the body, destroy the socket (a connection lost mid-response). */
  readonly reset?: boolean;
  /** Wait this long before answering (a collector or server far away, or busy). */
  readonly delayMs?: number;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: unknown;
}

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** Queue answers; each request takes the next one (an empty queue answers 500). */
  enqueue(...responses: LoopbackResponse[]): void;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1, port chosen by the OS, that records what it receives and answers from a queue. */
export async function startLoopbackServer(...responses: LoopbackResponse[]): Promise<LoopbackServer> {
  const queue: LoopbackResponse[] = [...responses];
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const pieces: Buffer[] = [];
    request.on('data', (piece: Buffer) => pieces.push(piece));
    request.on('end', () => {
      const body = Buffer.concat(pieces).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      requests.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, json });
      open.add(response);
      response.on('close', () => open.delete(response));
      void answer(response, queue.shift() ?? { status: 500, body: '{"error":{"message":"no response queued"}}' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...more) => queue.push(...more),
    close: async () => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function answer(response: ServerResponse, canned: LoopbackResponse): Promise<void> {
  if (canned.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, canned.delayMs));
  if (response.destroyed) return;
  response.socket?.setNoDelay(true);
  response.writeHead(canned.status ?? 200, { 'content-type': 'text/event-stream', ...canned.headers });
  const bytes = Buffer.from(canned.body ?? '', 'utf8');
  const size = canned.splitEvery ?? (bytes.length || 1);
  for (let offset = 0; offset < bytes.length; offset += size) {
    if (response.destroyed) return;
    response.write(bytes.subarray(offset, offset + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (canned.reset === true) {
    response.socket?.destroy();
    return;
  }
  if (canned.stall === true) return;
  response.end();
}

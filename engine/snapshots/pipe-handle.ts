import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';

/** A child process's pipe is a socket: it can stop (and start again) keeping Node alive. */
export function pipeHandle(stream: Readable | Writable): Pick<Socket, 'ref' | 'unref'> {
  return stream as unknown as Socket;
}

import type { ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable, Writable } from 'node:stream';
import { pipeHandle } from './pipe-handle.js';

/** Starts `git cat-file --batch` (with `--filters` for working-copy bytes) in the repository. */
export type StartBlobBatch = () => ChildProcessByStdio<Writable, Readable, null>;

/** An object as git stores it: its type (`blob`, `tree`, `commit`, `tag`) and its bytes. */
export interface GitObject {
  readonly type: string;
  readonly bytes: Buffer;
}

interface Request {
  readonly resolve: (object: GitObject) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Blobs in working-copy form (checkout filters applied) through one long-lived
 * `git cat-file --batch --filters`: a request is a line `<blob> <path>`, an answer
 * `<id> blob <size>\n<bytes>\n` (or `<id> missing\n`), in order. One process for the run instead
 * of one per file: the first change of each file of the base tree needs its content before.
 * The size git prints is the blob's before its filters (git 2.39 and others), so an answer is
 * framed by a sentinel instead: after each blob, an id that does not exist is asked for, and its
 * `missing` line ends the answer. The process keeps Node alive only while a request is open.
 * Once it fails, every read fails (the caller falls back to one command per blob).
 * Without `--filters`, `object` reads any object by its id, as git stores it.
 */
export class GitBlobBatch {
  readonly #start: StartBlobBatch;
  #child: ChildProcessByStdio<Writable, Readable, null> | undefined;
  readonly #waiting: Request[] = [];
  #buffer: Buffer = Buffer.alloc(0);
  #searchFrom = 0;
  #failure: Error | undefined;
  /** An object id no repository holds, asked for after each blob: its `missing` line closes the answer. */
  readonly #sentinel = randomBytes(20).toString('hex');
  readonly #marker = Buffer.from(`${this.#sentinel} missing\n`, 'utf8');

  constructor(start: StartBlobBatch) {
    this.#start = start;
  }

  /** Whether it can no longer read (then `read` rejects at once). */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** The blob's bytes as `git cat-file --filters --path=<path>` gives them. Paths with a line break cannot be asked for this way. */
  async read(blob: string, path: string): Promise<Buffer> {
    if (path.includes('\n')) throw new Error(`cannot ask git cat-file --batch for ${JSON.stringify(path)}`);
    const object = await this.#ask(blob, ` ${path}`);
    if (object.type !== 'blob') throw new Error(`git cat-file --batch: ${blob} is a ${object.type}`);
    return object.bytes;
  }

  /** An object by its full id, as stored (a process started without `--filters`). */
  object(id: string): Promise<GitObject> {
    return this.#ask(id, '');
  }

  #ask(id: string, rest: string): Promise<GitObject> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (!/^[0-9a-f]+$/.test(id)) return Promise.reject(new Error(`cannot ask git cat-file --batch for ${JSON.stringify(id)}`));
    const child = this.#running();
    return new Promise<GitObject>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      pipeHandle(child.stdout).ref();
      child.stdin.write(`${id}${rest}\n${this.#sentinel}${rest}\n`);
    });
  }

  close(): void {
    this.#fail(new Error('git cat-file --batch closed'));
  }

  #running(): ChildProcessByStdio<Writable, Readable, null> {
    if (this.#child !== undefined) return this.#child;
    const child = this.#start();
    this.#child = child;
    child.on('error', (error) => this.#fail(error));
    child.on('close', () => this.#fail(new Error('git cat-file --batch ended')));
    child.stdin.on('error', (error) => this.#fail(error));
    child.stdout.on('data', (chunk: Buffer) => this.#receive(chunk));
    child.unref();
    pipeHandle(child.stdout).unref();
    pipeHandle(child.stdin).unref();
    return child;
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const request = this.#waiting[0];
      if (request === undefined) return;
      // Each answer ends where the sentinel's `missing` line begins.
      const end = this.#buffer.indexOf(this.#marker, this.#searchFrom);
      if (end < 0) {
        this.#searchFrom = Math.max(0, this.#buffer.length - this.#marker.length);
        return;
      }
      const answer = this.#buffer.subarray(0, end);
      this.#buffer = this.#buffer.subarray(end + this.#marker.length);
      this.#searchFrom = 0;
      this.#waiting.shift();
      if (this.#waiting.length === 0 && this.#child !== undefined) pipeHandle(this.#child.stdout).unref();
      const newline = answer.indexOf(0x0a);
      const header = answer.subarray(0, Math.max(0, newline)).toString('utf8').split(' ');
      if (newline < 0 || header[1] === undefined || header[1] === 'missing' || header[1] === 'ambiguous') request.reject(new Error(`git cat-file --batch: ${header.join(' ')}`));
      // The object's bytes, then the newline git ends them with.
      else request.resolve({ type: header[1], bytes: Buffer.from(answer.subarray(newline + 1, answer.length - 1)) });
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const request of this.#waiting.splice(0)) request.reject(this.#failure);
    const child = this.#child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.stdin.end();
      child.kill();
    }
  }
}

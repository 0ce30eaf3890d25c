import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { FileSnapshotGitError } from '../snapshots/file-snapshot-errors.js';
import { pipeHandle } from '../snapshots/pipe-handle.js';

/** Starts `git update-ref -m <message> --stdin` in the repository. */
export type StartRefUpdates = () => ChildProcessWithoutNullStreams;

interface Move {
  readonly line: string;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/**
 * Ref moves through one long-lived `git update-ref --stdin`, one transaction each (`start`,
 * `update <ref> <new> [<old>]`, `commit`; git answers `start: ok` and `commit: ok`), one at a time:
 * git's own locking and compare-and-swap, without a process per move. When git refuses a move (a
 * ref that is not where the caller expected) it ends the process: that move rejects with git's
 * message, and the next move starts a new process. The process keeps Node alive only while a move
 * is open.
 */
export class GitRefUpdates {
  readonly #start: StartRefUpdates;
  #child: ChildProcessWithoutNullStreams | undefined;
  readonly #queue: Move[] = [];
  #current: Move | undefined;
  #stdout = '';
  #stderr = '';
  #closed = false;

  constructor(start: StartRefUpdates) {
    this.#start = start;
  }

  /** Whether `close` was called (then every move rejects at once). */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Moves `ref` to `to`: only if it points at `from` (a commit id), only if it does not exist yet
   * (`from` undefined), or wherever it points (`from` = 'anywhere').
   */
  move(ref: string, to: string, from: string | undefined | 'anywhere'): Promise<void> {
    if (this.#closed) return Promise.reject(new FileSnapshotGitError('update-ref', 'closed'));
    if (/\s/.test(ref) || !/^[0-9a-f]+$/.test(to) || (from !== undefined && from !== 'anywhere' && !/^[0-9a-f]+$/.test(from))) {
      return Promise.reject(new FileSnapshotGitError('update-ref', `cannot move ${JSON.stringify(ref)} to ${JSON.stringify(to)} through --stdin`));
    }
    // An id of zeros: the ref must not exist yet.
    const old = from === 'anywhere' ? '' : ` ${from ?? '0'.repeat(to.length)}`;
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ line: `start\nupdate ${ref} ${to}${old}\ncommit\n`, resolve, reject });
      this.#next();
    });
  }

  close(): void {
    this.#closed = true;
    for (const move of this.#queue.splice(0)) move.reject(new FileSnapshotGitError('update-ref', 'closed'));
    this.#child?.stdin.end();
  }

  #next(): void {
    if (this.#current !== undefined) return;
    const move = this.#queue.shift();
    if (move === undefined) {
      this.#child?.unref();
      if (this.#child !== undefined) pipeHandle(this.#child.stdout).unref();
      return;
    }
    this.#current = move;
    const child = this.#running();
    // While a move is open, Node waits for git's answer, or for its end when git refuses the move.
    child.ref();
    pipeHandle(child.stdout).ref();
    child.stdin.write(move.line);
  }

  #running(): ChildProcessWithoutNullStreams {
    if (this.#child !== undefined) return this.#child;
    const child = this.#start();
    this.#child = child;
    this.#stdout = '';
    this.#stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#receive(chunk));
    child.stderr.on('data', (chunk: string) => (this.#stderr += chunk));
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => this.#ended(child, error.message));
    child.on('close', () => this.#ended(child, this.#stderr || 'git update-ref ended'));
    pipeHandle(child.stdin).unref();
    pipeHandle(child.stderr).unref();
    return child;
  }

  #receive(chunk: string): void {
    this.#stdout += chunk;
    if (!this.#stdout.includes('commit: ok\n')) return;
    this.#stdout = this.#stdout.slice(this.#stdout.indexOf('commit: ok\n') + 'commit: ok\n'.length);
    const move = this.#current;
    this.#current = undefined;
    move?.resolve();
    this.#next();
  }

  /** The process is gone: the open move failed with what git said; the next one starts a new process. */
  #ended(child: ChildProcessWithoutNullStreams, reason: string): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    const move = this.#current;
    this.#current = undefined;
    move?.reject(new FileSnapshotGitError('update-ref', reason));
    if (!this.#closed) this.#next();
  }
}

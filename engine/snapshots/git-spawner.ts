import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { pipeHandle } from './pipe-handle.js';

/** What one git command left: its exit, its output; `error` when it could not start. */
export interface SpawnedGit {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly error?: string;
}

interface SpawnRequest {
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly input?: Buffer;
}

/**
 * The helper: reads requests (a 4-byte length, then JSON), starts each git command at once, and
 * answers each when it ends (a 4-byte length, a JSON header, then the command's stdout and stderr
 * bytes), in any order, by id. It says it is ready with an empty answer of id 0, and ends with its stdin.
 */
const HELPER_SOURCE = `
const { spawn } = require('node:child_process');
let pending = Buffer.alloc(0);
const answer = (id, head, out, err) => {
  const header = Buffer.from(JSON.stringify({ id, ...head, out: out.length, err: err.length }));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  process.stdout.write(Buffer.concat([length, header, out, err]));
};
const run = (request) => {
  const out = [];
  const err = [];
  let answered = false;
  const once = (head) => {
    if (answered) return;
    answered = true;
    answer(request.id, head, Buffer.concat(out), Buffer.concat(err));
  };
  let child;
  try {
    child = spawn('git', request.args, { cwd: request.cwd, env: request.env, stdio: [request.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  } catch (error) {
    return once({ code: null, signal: null, error: String(error && error.message) });
  }
  if (request.input !== undefined) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(Buffer.from(request.input, 'base64'));
  }
  child.stdout.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => err.push(chunk));
  child.on('error', (error) => once({ code: null, signal: null, error: error.message }));
  child.on('close', (code, signal) => once({ code, signal }));
};
process.stdin.on('data', (chunk) => {
  pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
  while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32LE(0)) {
    const length = pending.readUInt32LE(0);
    run(JSON.parse(pending.toString('utf8', 4, 4 + length)));
    pending = pending.subarray(4 + length);
  }
});
process.stdin.on('end', () => process.exit(0));
answer(0, { code: 0, signal: null }, Buffer.alloc(0), Buffer.alloc(0));
`;

interface AnswerHeader {
  readonly id: number;
  readonly code: number | null;
  readonly signal: string | null;
  readonly error?: string;
  readonly out: number;
  readonly err: number;
}

interface Waiting {
  readonly resolve: (spawned: SpawnedGit) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Starts git commands from a small helper process instead of this one. Starting a process from
 * Node forks the whole process first: in a run, with its heap, its threads and its store, each
 * git command held the run's thread 5–8 ms and cost as much CPU again; the helper's fork is of a
 * bare Node. The helper starts with the run (`startGitSpawner`); until it says it is ready, and
 * after it ends, commands start here as before. It keeps Node alive only while a command is open.
 */
export class GitSpawner {
  readonly #child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #waiting = new Map<number, Waiting>();
  #ready = false;
  #ended = false;
  #nextId = 1;
  #chunks: Buffer[] = [];
  #size = 0;
  /** The answer being received: its header, and where its output starts and ends. */
  #frame: { readonly header: AnswerHeader; readonly start: number; readonly end: number } | undefined;

  constructor() {
    this.#child = spawn(process.execPath, ['-e', HELPER_SOURCE], { stdio: ['pipe', 'pipe', 'ignore'], env: process.env });
    this.#child.on('error', () => this.#end());
    this.#child.on('close', () => this.#end());
    this.#child.stdin.on('error', () => this.#end());
    this.#child.stdout.on('data', (chunk: Buffer) => this.#receive(chunk));
    this.#child.unref();
    pipeHandle(this.#child.stdin).unref();
    pipeHandle(this.#child.stdout).unref();
  }

  /** Whether commands go through the helper now. */
  get ready(): boolean {
    return this.#ready && !this.#ended;
  }

  run(request: SpawnRequest): Promise<SpawnedGit> {
    if (!this.ready) return Promise.reject(new Error('the git helper is not running'));
    const id = this.#nextId++;
    const body = Buffer.from(JSON.stringify({ id, args: request.args, cwd: request.cwd, env: request.env, ...(request.input === undefined ? {} : { input: request.input.toString('base64') }) }), 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length);
    return new Promise<SpawnedGit>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      if (this.#waiting.size === 1) this.#hold(true);
      this.#child.stdin.write(Buffer.concat([length, body]));
    });
  }

  /** Ends the helper; commands start here again. */
  close(): void {
    this.#child.stdin.end();
    this.#end();
  }

  #hold(keepAlive: boolean): void {
    for (const handle of [this.#child, pipeHandle(this.#child.stdout)]) {
      if (keepAlive) handle.ref();
      else handle.unref();
    }
  }

  #receive(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    for (;;) {
      if (this.#frame === undefined) {
        if (this.#size < 4) return;
        const head = this.#joined();
        const headerLength = head.readUInt32LE(0);
        if (this.#size < 4 + headerLength) return;
        const header = JSON.parse(head.toString('utf8', 4, 4 + headerLength)) as AnswerHeader;
        this.#frame = { header, start: 4 + headerLength, end: 4 + headerLength + header.out + header.err };
      }
      // A long output arrives in many chunks: they are joined once, when the whole answer is here.
      const { header, start, end } = this.#frame;
      if (this.#size < end) return;
      const whole = this.#joined();
      const stdout = Buffer.from(whole.subarray(start, start + header.out));
      const stderr = Buffer.from(whole.subarray(start + header.out, end));
      const rest = whole.subarray(end);
      this.#chunks = rest.length === 0 ? [] : [rest];
      this.#size = rest.length;
      this.#frame = undefined;
      if (header.id === 0) {
        this.#ready = true;
        continue;
      }
      const waiting = this.#waiting.get(header.id);
      this.#waiting.delete(header.id);
      if (this.#waiting.size === 0) this.#hold(false);
      waiting?.resolve({ code: header.code, signal: header.signal, stdout, stderr, ...(header.error === undefined ? {} : { error: header.error }) });
    }
  }

  /** What has arrived and is not yet answered, as one buffer. */
  #joined(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }

  /** The helper is gone: what it had not answered fails (it may have run), later commands start here. */
  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const waiting of this.#waiting.values()) waiting.reject(new Error('the git helper ended before the command did'));
    this.#waiting.clear();
    if (spawner === this) spawner = undefined;
  }
}

let spawner: GitSpawner | undefined;

/** Starts the git helper for this process (a long one: a run), if none runs. */
export function startGitSpawner(): GitSpawner {
  spawner ??= new GitSpawner();
  return spawner;
}

/** The process's git helper when it is ready to take commands. */
export function gitSpawner(): GitSpawner | undefined {
  return spawner?.ready === true ? spawner : undefined;
}

import { visibleText, type ApprovalAnswer, type ApprovalRequest } from '../engine/index.js';
import type { NamedApprover } from './approvers.js';

export interface TerminalApproverOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
}

/**
 * Asks on a terminal: yes, no (optionally with a reason the model reads: `n use the helper`),
 * or always (this tool, for the rest of the run). Under `suggest` Enter means yes; under `never`
 * there is no default and an empty or unclear answer asks again. Questions from parallel tool
 * calls are asked one at a time. Closed input answers no. The question shows control characters
 * and terminal escapes in the command or path as escapes: the user approves what will run.
 */
export function createTerminalApprover(options: TerminalApproverOptions): NamedApprover {
  const lines = new LineReader(options.input);
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    const answer = queue.then(() => askOnce(request, signal, lines, options.output));
    queue = answer.catch(() => undefined);
    return answer;
  };
  return { name: 'user', interactive: true, ask };
}

async function askOnce(request: ApprovalRequest, signal: AbortSignal, lines: LineReader, output: NodeJS.WritableStream): Promise<ApprovalAnswer> {
  const where = request.nodeId === null ? '' : ` (node ${visibleText(request.nodeId)})`;
  const choices = request.policy === 'suggest' ? '[Y]es / [n]o / [a]lways for this run' : 'yes / no / always for this run [y/n/a]';
  output.write(`\ndagent wants to ${visibleText(request.summary)}${where}\n`);
  for (;;) {
    if (signal.aborted) return { decision: 'no', reason: 'the run was cancelled while waiting for an answer' };
    output.write(`Allow? ${choices}: `);
    const line = await lines.readLine(signal);
    if (line === undefined) {
      output.write('\n');
      return signal.aborted
        ? { decision: 'no', reason: 'the run was cancelled while waiting for an answer' }
        : { decision: 'no', reason: 'the terminal input closed' };
    }
    const answer = parseApprovalAnswer(line, request.policy);
    if (answer !== undefined) return answer;
    output.write(request.policy === 'never' ? 'Please answer y, n or a (there is no default).\n' : 'Please answer y, n or a.\n');
  }
}

/** `y`/`yes`, `a`/`always`, `n`/`no` with an optional reason; Enter is yes only under `suggest`. Pure. */
export function parseApprovalAnswer(line: string, policy: ApprovalRequest['policy']): ApprovalAnswer | undefined {
  const text = line.trim();
  const lower = text.toLowerCase();
  if (lower === '') return policy === 'suggest' ? { decision: 'yes' } : undefined;
  if (lower === 'y' || lower === 'yes') return { decision: 'yes' };
  if (lower === 'a' || lower === 'always') return { decision: 'always' };
  const no = /^(?:no|n)(?:$|[\s,:;.-]+)(.*)$/is.exec(text);
  if (no !== null) {
    const reason = no[1]!.trim();
    return reason === '' ? { decision: 'no' } : { decision: 'no', reason };
  }
  return undefined;
}

/** Reads lines from a stream on demand, keeping what arrives early for the next question. */
class LineReader {
  readonly #input: NodeJS.ReadableStream;
  #buffer = '';
  #ended = false;

  constructor(input: NodeJS.ReadableStream) {
    this.#input = input;
  }

  /** The next line without its newline, or undefined when the input ended or `signal` aborted. */
  readLine(signal: AbortSignal): Promise<string | undefined> {
    const ready = this.#takeLine();
    if (ready !== undefined || this.#ended) return Promise.resolve(ready ?? this.#takeRest());
    return new Promise((resolve) => {
      const finish = (line: string | undefined): void => {
        this.#input.off('data', onData);
        this.#input.off('end', onEnd);
        this.#input.off('close', onEnd);
        signal.removeEventListener('abort', onAbort);
        this.#input.pause();
        resolve(line);
      };
      const onData = (chunk: string | Buffer): void => {
        this.#buffer += chunk.toString();
        const line = this.#takeLine();
        if (line !== undefined) finish(line);
      };
      const onEnd = (): void => {
        this.#ended = true;
        finish(this.#takeRest());
      };
      const onAbort = (): void => finish(undefined);
      this.#input.on('data', onData);
      this.#input.on('end', onEnd);
      this.#input.on('close', onEnd);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#input.resume();
    });
  }

  #takeLine(): string | undefined {
    const newline = this.#buffer.indexOf('\n');
    if (newline < 0) return undefined;
    const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
    this.#buffer = this.#buffer.slice(newline + 1);
    return line;
  }

  /** A last line without a newline at the end of input. */
  #takeRest(): string | undefined {
    if (this.#buffer === '') return undefined;
    const rest = this.#buffer;
    this.#buffer = '';
    return rest;
  }
}

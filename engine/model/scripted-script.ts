import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';
import { z } from 'zod';
import { ScriptFileError } from './model-errors.js';

const count = z.number().int().nonnegative();

const usageSchema = z
  .object({ input: count.optional(), output: count.optional(), cacheHit: count.optional(), reasoning: count.optional() })
  .strict();

const toolCallSchema = z
  .object({
    id: z.string().min(1).optional(),
    name: z.string().min(1),
    args: z.unknown().optional(),
    /** Raw argument text, to simulate a model that wrote invalid JSON. */
    argsText: z.string().optional(),
  })
  .strict();

const errorSchema = z
  .object({
    status: z.number().int().min(100).max(599),
    message: z.string(),
    headers: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
  })
  .strict();

const turnSchema = z
  .object({
    text: z.string().optional(),
    reasoning: z.string().optional(),
    toolCalls: z.array(toolCallSchema).optional(),
    latencyMs: count.optional(),
    /** After the latency, the text streams in word-sized pieces spread over this many milliseconds. */
    streamMs: count.optional(),
    usage: usageSchema.optional(),
    error: errorSchema.optional(),
    finishReason: z.enum(['stop', 'tool-calls', 'length', 'content-filter', 'error', 'other']).optional(),
  })
  .strict();

export const scriptedModelScriptSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().optional(),
    contextWindow: z.number().int().positive().optional(),
    /** The scripted model accepts images (`@shot.png` references); false by default. */
    images: z.boolean().optional(),
    agents: z.record(z.string(), z.array(turnSchema)),
    defaults: z.object({ latencyMs: count.optional(), streamMs: count.optional() }).strict().optional(),
  })
  .strict();

/** The scripted model file (docs/scripted-model.md): per-agent queues of turns, consumed in order. */
export type ScriptedModelScript = z.infer<typeof scriptedModelScriptSchema>;
export type ScriptedTurn = z.infer<typeof turnSchema>;

/** Validates a script (parsed JSON or an object built in code); `source` names it in errors. */
export function parseScript(value: unknown, source: string): ScriptedModelScript {
  const result = scriptedModelScriptSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue === undefined) throw new ScriptFileError(source, 'invalid script');
  const where = formatPath(issue.path);
  throw new ScriptFileError(source, `${where === '' ? 'the document' : where}: ${issue.message}`);
}

/**
 * Reads and validates a script file; every failure is one `ScriptFileError` line naming the file.
 * By default only a regular file is read: a FIFO, a device or a socket would block or never end.
 */
export function readScriptFile(file: string, readFile: (path: string) => string = readRegularFile): ScriptedModelScript {
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : String(error);
    throw new ScriptFileError(file, `cannot read the file (${reason})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ScriptFileError(file, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return parseScript(value, file);
}

/** Largest script file read; a scripted model is a test fixture, not a data set. */
export const MAX_SCRIPT_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The file's text, when it is a regular file. It is opened non-blocking (opening a FIFO for
 * reading otherwise waits for a writer forever) and checked on the open descriptor, so a file
 * swapped after a check cannot slip through.
 */
function readRegularFile(path: string): string {
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = fstatSync(descriptor);
    if (!info.isFile()) throw new Error(`it is ${kindOf(info)}, not a regular file; a script must be a JSON file`);
    if (info.size > MAX_SCRIPT_FILE_BYTES) throw new Error(`it has ${info.size} bytes, more than the ${MAX_SCRIPT_FILE_BYTES / 1024 / 1024} MB a script may have`);
    return readFileSync(descriptor, 'utf8');
  } finally {
    closeSync(descriptor);
  }
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) text += text === '' ? key : `.${key}`;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

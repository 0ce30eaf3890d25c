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
    agents: z.record(z.string(), z.array(turnSchema)),
    defaults: z.object({ latencyMs: count.optional() }).strict().optional(),
  })
  .strict();

/** The scripted model file of ARCHITECTURE.md: per-agent queues of turns, consumed in order. */
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

/** Reads and validates a script file; every failure is one `ScriptFileError` line naming the file. */
export function readScriptFile(file: string, readFile: (path: string) => string): ScriptedModelScript {
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

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) text += text === '' ? key : `.${key}`;
    else text += `[${JSON.stringify(String(key))}]`;
  }
  return text;
}

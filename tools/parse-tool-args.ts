import { z } from 'zod';
import type { ToolCallRequest } from '../engine/index.js';
import type { Tool } from './define-tool.js';

export type ParsedToolArgs<A> =
  | { readonly ok: true; readonly args: A }
  | { readonly ok: false; readonly message: string; readonly received: unknown };

/**
 * Validates a call's arguments against the tool's schema. On failure the message is what the
 * model reads: every issue with its path, then the expected shape, so the next call can be right.
 */
export function parseToolArgs<A>(tool: Pick<Tool<A>, 'name' | 'args' | 'parameters'>, call: ToolCallRequest): ParsedToolArgs<A> {
  const raw = rawArguments(call);
  if (!raw.ok) {
    return {
      ok: false,
      received: call.argsText ?? call.args,
      message: `the arguments of ${tool.name} are not valid JSON: ${raw.error}. Send one JSON object matching the tool's schema: ${describeArgsShape(tool)}`,
    };
  }
  const parsed = tool.args.safeParse(raw.value);
  if (parsed.success) return { ok: true, args: parsed.data };
  const issues = parsed.error.issues.map((issue) => `- ${issue.path.length === 0 ? '(arguments)' : issue.path.join('.')}: ${issue.message}`);
  return {
    ok: false,
    received: raw.value,
    message: `invalid arguments for ${tool.name}:\n${issues.join('\n')}\nExpected: ${describeArgsShape(tool)}`,
  };
}

/**
 * The arguments as a value: an object, JSON text the provider passed through, or `{}` when absent.
 * The raw `argsText` (kept by the model layer only when the text was not a JSON object) wins over
 * the `{}` stand-in, so broken JSON is reported as broken JSON, not as missing fields.
 */
function rawArguments(call: ToolCallRequest): { ok: true; value: unknown } | { ok: false; error: string } {
  const absent = call.args === undefined || call.args === null;
  const text = call.argsText ?? (typeof call.args === 'string' ? call.args : undefined);
  if (text === undefined) return { ok: true, value: absent ? {} : call.args };
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: jsonErrorWithPosition(text, error instanceof Error ? error.message : String(error)) };
  }
}

const UNEXPECTED_TOKEN = /^Unexpected token/;

/**
 * The parser's message with the position of the fault. Node's parser names the position for most
 * faults but not for an unexpected token; that position is found as the longest prefix of the text
 * the parser does not reject for an unexpected token (a prefix that merely ends early is fine).
 */
function jsonErrorWithPosition(text: string, message: string): string {
  if (/at position \d+/.test(message)) return message;
  if (/^Unexpected end of JSON input/.test(message)) return `${message} at position ${text.length}`;
  if (!UNEXPECTED_TOKEN.test(message)) return message;
  let good = 0;
  let bad = text.length;
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (rejectsAToken(text.slice(0, middle))) bad = middle;
    else good = middle;
  }
  const token = /^Unexpected token (.+?), "/.exec(message)?.[1];
  return `Unexpected token${token === undefined ? '' : ` ${token}`} in JSON at position ${good}`;
}

function rejectsAToken(prefix: string): boolean {
  try {
    JSON.parse(prefix);
    return false;
  } catch (error) {
    return error instanceof Error && UNEXPECTED_TOKEN.test(error.message);
  }
}

/** `{ path: string, offset?: integer >= 1 }`: the argument shape in one line, from the JSON Schema. */
export function describeArgsShape(tool: Pick<Tool, 'args' | 'parameters'>): string {
  const schema = (tool.parameters ?? z.toJSONSchema(tool.args, { io: 'input', unrepresentable: 'any' })) as JsonSchema;
  return describeSchema(schema);
}

interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonSchema[];
  readonly minimum?: number;
  readonly maximum?: number;
}

const LARGEST_SAFE_INTEGER = Number.MAX_SAFE_INTEGER;

function describeSchema(schema: JsonSchema): string {
  if (schema.enum !== undefined) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  if (schema.anyOf !== undefined) return schema.anyOf.map(describeSchema).join(' | ');
  if (schema.type === 'object' && schema.properties !== undefined) {
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties).map(
      ([name, property]) => `${name}${required.has(name) ? '' : '?'}: ${describeSchema(property)}`,
    );
    return `{ ${fields.join(', ')} }`;
  }
  if (schema.type === 'array') return `${schema.items === undefined ? 'unknown' : describeSchema(schema.items)}[]`;
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type as string | undefined) ?? 'any';
  const bounds: string[] = [];
  if (schema.minimum !== undefined && schema.minimum > -LARGEST_SAFE_INTEGER) bounds.push(`>= ${schema.minimum}`);
  if (schema.maximum !== undefined && schema.maximum < LARGEST_SAFE_INTEGER) bounds.push(`<= ${schema.maximum}`);
  return bounds.length === 0 ? type : `${type} ${bounds.join(', ')}`;
}

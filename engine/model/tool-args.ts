import { createHash } from 'node:crypto';

/** A tool call's arguments as the tool layer receives them. */
export interface ParsedToolArgs {
  readonly args: unknown;
  /** Present only when the model's text was not a JSON object: the raw text, so the tool layer can say what was wrong. */
  readonly argsText?: string;
}

/**
 * Reads the argument text a model streamed. Empty text is `{}` (a tool without parameters);
 * a JSON object is the arguments; a JSON string holding an object (double-encoded, as some
 * servers send it) is unwrapped; anything else yields `args: {}` plus the raw `argsText`.
 */
export function parseToolArgs(text: string): ParsedToolArgs {
  if (text.trim().length === 0) return { args: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
    if (typeof value === 'string') value = JSON.parse(value);
  } catch {
    return { args: {}, argsText: text };
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { args: value };
  return { args: {}, argsText: text };
}

/**
 * An id for a tool call the provider left without one (Gemini sends "", Ollama and llama.cpp
 * none). Derived from the response id and the call's position, so it is unique per response and
 * the same every time the same response is parsed.
 */
export function synthesizeToolCallId(responseId: string, position: number, name: string): string {
  const digest = createHash('sha256').update(`${responseId}\u0000${position}\u0000${name}`).digest('hex');
  return `call_${digest.slice(0, 24)}`;
}

import { SECRET_SHAPES, type ScanMemo, type SecretShape, type SecretSpan } from './secret-shapes.js';

/**
 * Finds where secrets lie in a text, in time linear in its length and without recursion: the
 * shapes' starts are bounded expressions joined into one scan, each completion extends a match with
 * a character loop, and base64 runs are decoded once each and looked into for a secret.
 */

interface CompiledShapes {
  readonly expression: RegExp;
  readonly shapes: readonly SecretShape[];
  /** A copy of `expression` no scan is using now: copying costs more than scanning a short text. */
  idle: RegExp | undefined;
}

function compile(shapes: readonly SecretShape[], flags: string): CompiledShapes {
  const expression = new RegExp(shapes.map((shape) => `(${shape.start})`).join('|'), flags);
  return { expression, shapes, idle: new RegExp(expression) };
}

const CASE_SENSITIVE = compile(
  SECRET_SHAPES.filter((shape) => shape.caseInsensitive !== true),
  'g',
);
const CASE_INSENSITIVE = compile(
  SECRET_SHAPES.filter((shape) => shape.caseInsensitive === true),
  'gi',
);

/** Each span of `text` that holds a secret of a known shape (spans may overlap). */
export function shapeSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  collect(text, CASE_SENSITIVE, spans);
  collect(text, CASE_INSENSITIVE, spans);
  return spans;
}

function collect(text: string, compiled: CompiledShapes, spans: SecretSpan[]): void {
  // A scan holds its own copy, so that nested scans (a redaction inside a completion) never share
  // `lastIndex`; the copy is handed back for the next scan when this one ends.
  const expression = compiled.idle ?? new RegExp(compiled.expression);
  compiled.idle = undefined;
  expression.lastIndex = 0;
  try {
    const memo = createScanMemo(text);
    for (let match = expression.exec(text); match !== null; match = expression.exec(text)) {
      const shape = compiled.shapes[match.findIndex((group, index) => index > 0 && group !== undefined) - 1]!;
      const outcome = shape.complete(text, match.index, match.index + match[0].length, memo);
      const next = 'resumeAt' in outcome ? outcome.resumeAt : (outcome.next ?? outcome.to);
      if (!('resumeAt' in outcome) && outcome.to > outcome.from) spans.push({ from: outcome.from, to: outcome.to });
      expression.lastIndex = Math.max(next, match.index + 1);
    }
  } finally {
    compiled.idle = expression;
  }
}

/** `indexOf` that, asked again for the same needle from further on, answers from what it found before. */
function createScanMemo(text: string): ScanMemo {
  const found = new Map<string, number>();
  return {
    nextIndexOf(needle, from) {
      const known = found.get(needle);
      if (known !== undefined && (known === -1 || known >= from)) return known;
      const index = text.indexOf(needle, from);
      found.set(needle, index);
      return index;
    },
  };
}

/** Base64 runs shorter than this (ids, hashes, words) cannot hold a key worth decoding for. */
export const MIN_BASE64_RUN_CHARS = 24;

/**
 * Each run of base64 (standard or URL-safe alphabet) in `text` whose decoded bytes hold a secret,
 * as `holdsSecret` judges them: a key written base64-encoded (a Kubernetes secret, a Basic header,
 * an encoded `.env`) is redacted whole.
 */
export function base64Spans(text: string, holdsSecret: (decoded: string) => boolean): SecretSpan[] {
  const spans: SecretSpan[] = [];
  let index = 0;
  while (index < text.length) {
    if (!isBase64Code(text.charCodeAt(index))) {
      index += 1;
      continue;
    }
    const from = index;
    while (index < text.length && isBase64Code(text.charCodeAt(index))) index += 1;
    while (index < text.length && text.charCodeAt(index) === 0x3d /* = */) index += 1;
    if (index - from >= MIN_BASE64_RUN_CHARS && holdsSecret(Buffer.from(text.slice(from, index), 'base64').toString('latin1'))) spans.push({ from, to: index });
  }
  return spans;
}

function isBase64Code(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x2b || // +
    code === 0x2f || // /
    code === 0x2d || // -
    code === 0x5f // _
  );
}

/** Whether `text` is base64 as a whole (the standard alphabet, padded): checked with a loop, never an expression over the whole input. */
export function isWholeBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  let end = text.length;
  if (text.endsWith('==')) end -= 2;
  else if (text.endsWith('=')) end -= 1;
  for (let index = 0; index < end; index += 1) {
    const code = text.charCodeAt(index);
    if (!isBase64Code(code) || code === 0x2d || code === 0x5f) return false;
  }
  return true;
}

/** Every occurrence of each of `values` in `text`. */
export function valueSpans(text: string, values: readonly string[]): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const value of values) {
    for (let index = text.indexOf(value); index >= 0; index = text.indexOf(value, index + value.length)) spans.push({ from: index, to: index + value.length });
  }
  return spans;
}

/** `text` with each of `spans` (in any order, possibly overlapping) replaced by `replacement`. */
export function replaceSpans(text: string, spans: readonly SecretSpan[], replacement: string): string {
  if (spans.length === 0) return text;
  const sorted = [...spans].sort((a, b) => a.from - b.from || b.to - a.to);
  const pieces: string[] = [];
  let cursor = 0;
  for (const span of sorted) {
    if (span.to <= cursor) continue;
    if (span.from >= cursor) {
      pieces.push(text.slice(cursor, span.from), replacement);
    }
    cursor = span.to;
  }
  pieces.push(text.slice(cursor));
  return pieces.join('');
}

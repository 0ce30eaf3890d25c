import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { checkPlan, type PlanCheck } from './check-plan.js';
import { PlanInvalidError } from './plan-errors.js';
import type { PlanRules } from './plan-rules.js';
import type { Plan } from './plan-schema.js';

export type PlanDocumentFormat = 'json' | 'yaml';

export interface PlanDocumentOptions {
  /** Default: from the source's extension (`.json`, `.yaml`, `.yml`), else by the first character. */
  readonly format?: PlanDocumentFormat;
  /** Where the text came from, e.g. the file name: the prefix of error messages. */
  readonly source?: string;
  /** The rules of the run's isolation (default: nodes share the working copy). */
  readonly rules?: PlanRules;
}

/** A plan document's text (JSON, or YAML on import) checked against the schema and the graph rules. */
export function checkPlanDocument(text: string, options: PlanDocumentOptions = {}): PlanCheck {
  // An empty file is an empty document in either format, as YAML reads it (JSON's parser said "Unexpected end of JSON input").
  if (text.trim() === '') return checkPlan(null, options.rules);
  const format = options.format ?? guessFormat(text, options.source);
  const read = format === 'json' ? readJson(text) : readYaml(text);
  if (!read.ok) return { ok: false, issues: [{ code: 'syntax', message: read.message }] };
  return checkPlan(read.value, options.rules);
}

/** `checkPlanDocument` that throws `PlanInvalidError`, every issue in its message. */
export function parsePlanDocument(text: string, options: PlanDocumentOptions = {}): Plan {
  const check = checkPlanDocument(text, options);
  if (!check.ok) throw new PlanInvalidError(check.issues, options.source);
  return check.plan;
}

function guessFormat(text: string, source: string | undefined): PlanDocumentFormat {
  if (source !== undefined) {
    const lower = source.toLowerCase();
    if (lower.endsWith('.json')) return 'json';
    if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return 'yaml';
  }
  return /^\s*[{[]/.test(text) ? 'json' : 'yaml';
}

type Read = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

function readJson(text: string): Read {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /at position (\d+)/.exec(message);
    const where = position === null || /line \d+/.test(message) ? '' : ` (${lineAndColumn(text, Number(position[1]))})`;
    return { ok: false, message: `not valid JSON: ${message}${where}` };
  }
}

/** The YAML parser (some 70 modules) is loaded by the first YAML document, not by every command that loads the engine. */
let yaml: typeof Yaml | undefined;

function readYaml(text: string): Read {
  yaml ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  const document = yaml.parseDocument(text, { prettyErrors: true });
  const first = document.errors[0];
  // The parser's advice for several documents is for its own callers (`parseAllDocuments()`): a plan is one.
  if (first?.code === 'MULTIPLE_DOCS') return { ok: false, message: 'a plan is one YAML document, and this file holds several (a line "---" starts another): keep one' };
  if (first !== undefined) return { ok: false, message: `not valid YAML: ${first.message.split('\n')[0]!.replace(/:$/, '')}` };
  return { ok: true, value: document.toJS() as unknown };
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return `line ${line}, column ${column}`;
}

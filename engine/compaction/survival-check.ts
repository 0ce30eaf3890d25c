import type { SurfaceEvent } from '../session/index.js';

/** A fact a summary must keep: a file path, an exported identifier or a failing test's name. */
export interface SurvivalFact {
  readonly kind: 'path' | 'identifier' | 'failing-test';
  readonly value: string;
}

/** At most this many facts are checked; a region that names more keeps the first ones found. */
export const MAX_SURVIVAL_FACTS = 200;

const CODE_EXTENSIONS =
  'ts|tsx|mts|cts|js|jsx|mjs|cjs|json|jsonc|md|mdx|py|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|sh|yml|yaml|toml|ini|css|scss|less|html|vue|svelte|sql|graphql|proto|txt|lock|xml|gradle';
/** `dir/name.ext` with any extension, or a bare `name.ext` with a code extension. */
const PATH_PATTERN = new RegExp(
  String.raw`(?<![\w@./:-])(?:\.{1,2}/)?(?:(?:[\w@.-]+/)+[\w@-][\w@.-]*\.[A-Za-z][A-Za-z0-9]{0,9}|[\w@-][\w@.-]*\.(?:${CODE_EXTENSIONS}))(?![\w/-])`,
  'g',
);
const EXPORT_DECLARATION =
  /\bexport\s+(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|const|let|var|enum|namespace)\s+([A-Za-z_$][\w$]*)/g;
const EXPORT_LIST = /\bexport\s+(?:type\s+)?\{([^}]*)\}/g;
const PATH_KEY = /path|file/i;

/** Failing-test lines of the common runners, each with the part that holds the test's name. */
const FAILING_TEST_LINES: readonly RegExp[] = [
  /^\s*(?:[×✕✗✘]|FAIL)\s+(.+)$/gm, // vitest, jest
  /^\s*●\s+(.+)$/gm, // jest failure headings
  /^FAILED\s+\S*::(\S+)/gm, // pytest
  /^\s*--- FAIL:\s+(\S+)/gm, // go test
  /^test\s+(\S+)\s+\.\.\.\s+FAILED/gm, // cargo test
];

/**
 * The facts of a compacted region that its summary must mention: file paths named in tool-call
 * arguments and in user and assistant text, identifiers exported by code anywhere in the region
 * (file contents, edits), and the names of failing tests in tool output. Pure.
 */
export function extractSurvivalFacts(events: readonly SurfaceEvent[]): SurvivalFact[] {
  const paths = new Set<string>();
  const identifiers = new Set<string>();
  const failingTests = new Set<string>();
  for (const event of events) {
    if (event.type === 'tool/result') {
      collectIdentifiers(event.payload.content, identifiers);
      for (const name of failingTestNames(event.payload.content)) failingTests.add(name);
      continue;
    }
    collectPaths(event.payload.content, paths);
    collectIdentifiers(event.payload.content, identifiers);
    if (event.type === 'assistant/message') {
      for (const call of event.payload.toolCalls) collectFromArgs(call.args, undefined, paths, identifiers);
    }
  }
  const facts: SurvivalFact[] = [
    ...[...failingTests].map((value) => ({ kind: 'failing-test' as const, value })),
    ...[...paths].map((value) => ({ kind: 'path' as const, value })),
    ...[...identifiers].map((value) => ({ kind: 'identifier' as const, value })),
  ];
  return facts.slice(0, MAX_SURVIVAL_FACTS);
}

/** The facts a summary does not mention (identifiers as whole words, the rest verbatim). Pure. */
export function missingFacts(facts: readonly SurvivalFact[], summary: string): SurvivalFact[] {
  return facts.filter((fact) => !mentions(summary, fact));
}

/** Every fact of the region that the summary lost. Pure. */
export function survivalCheck(region: readonly SurfaceEvent[], summary: string): SurvivalFact[] {
  return missingFacts(extractSurvivalFacts(region), summary);
}

function mentions(summary: string, fact: SurvivalFact): boolean {
  if (fact.kind !== 'identifier') return summary.includes(fact.value);
  return new RegExp(String.raw`(?<![\w$])${fact.value.replace(/\$/g, '\\$')}(?![\w$])`).test(summary);
}

function collectPaths(text: string, into: Set<string>): void {
  for (const match of text.matchAll(PATH_PATTERN)) into.add(normalizePath(match[0]));
}

function collectIdentifiers(text: string, into: Set<string>): void {
  if (!text.includes('export')) return;
  for (const match of text.matchAll(EXPORT_DECLARATION)) into.add(match[1]!);
  for (const match of text.matchAll(EXPORT_LIST)) {
    for (const part of match[1]!.split(',')) {
      const name = part.trim().split(/\s+as\s+/).at(-1)?.replace(/^type\s+/, '').trim();
      if (name !== undefined && /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default') into.add(name);
    }
  }
}

function collectFromArgs(value: unknown, key: string | undefined, paths: Set<string>, identifiers: Set<string>): void {
  if (typeof value === 'string') {
    if (key !== undefined && PATH_KEY.test(key) && value.trim() !== '' && value.trim() !== '.' && !value.includes('\n')) paths.add(normalizePath(value.trim()));
    else collectPaths(value, paths);
    collectIdentifiers(value, identifiers);
  } else if (Array.isArray(value)) {
    for (const item of value) collectFromArgs(item, key, paths, identifiers);
  } else if (value !== null && typeof value === 'object') {
    for (const [entryKey, entry] of Object.entries(value)) collectFromArgs(entry, entryKey, paths, identifiers);
  }
}

function normalizePath(path: string): string {
  return path.replace(/^\.\//, '');
}

/** The names of the tests a runner's output reports as failing. Pure. */
export function failingTestNames(output: string): string[] {
  const names: string[] = [];
  for (const pattern of FAILING_TEST_LINES) {
    for (const match of output.matchAll(pattern)) {
      const name = testLeafName(match[1]!);
      if (name !== undefined) names.push(name);
    }
  }
  return [...new Set(names)];
}

function testLeafName(text: string): string | undefined {
  const trimmed = text.replace(/\s+\[[^\]]*\]\s*$/, '').replace(/\s+\(?\d+(?:\.\d+)?\s?m?s\)?\s*$/, '').trim();
  const segments = trimmed.split(/\s+[>›]\s+/);
  // A lone file name is a failing file (jest's `FAIL src/a.test.ts`), not a test.
  if (segments.length === 1 && /^\S+\.[A-Za-z]\w*$/.test(trimmed)) return undefined;
  const leaf = segments.at(-1)!.trim();
  return leaf === '' || leaf === 'Test suite failed to run' ? undefined : leaf;
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The documents whose references must resolve: the README, every docs/*.md, the examples' README. */
export function documentedFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join('docs', name));
  return ['README.md', ...docs.sort(), join('examples', 'README.md')];
}

/** One reference a document makes, and where. */
export interface Reference {
  readonly document: string;
  readonly line: number;
  readonly target: string;
}

const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;
const CODE_SPAN = /`([^`\n]+)`/g;
/** Top-level entries of this repository: a code span starting with one of these names a file of it. */
const REPO_PREFIX = /^(engine|cli|tools|planners|dashboard|migrations|bench|tests|examples|docs|bin|\.ci)\//;
const REPO_FILES = new Set(['package.json', 'README.md', 'eslint.config.js', 'rolldown.config.mjs', 'tsconfig.json', 'tsconfig.build.json', 'vitest.config.ts']);

/** The lines of a document outside fenced code blocks, with their 1-based numbers. */
function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((content, index) => {
    if (/^\s*(```|~~~)/.test(content)) fenced = !fenced;
    else if (!fenced) lines.push({ line: index + 1, text: content });
  });
  return lines;
}

/** Relative links (`[text](path#anchor)`) of a document: web and mail links are left out. */
export function relativeLinks(document: string): Reference[] {
  const references: Reference[] = [];
  for (const { line, text } of proseLines(readFileSync(join(REPO_ROOT, document), 'utf8'))) {
    for (const match of text.matchAll(LINK)) {
      const target = match[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      references.push({ document, line, target });
    }
  }
  return references;
}

/** Repository paths named in code spans (`engine/index.ts`, `.ci/run`), relative to the root; globs and placeholders left out. */
export function mentionedPaths(document: string): Reference[] {
  const references: Reference[] = [];
  for (const { line, text } of proseLines(readFileSync(join(REPO_ROOT, document), 'utf8'))) {
    for (const match of text.matchAll(CODE_SPAN)) {
      const span = match[1]!.trim();
      if (/[\s*…<>{}]/.test(span)) continue;
      if (REPO_PREFIX.test(span) || REPO_FILES.has(span)) references.push({ document, line, target: span });
    }
  }
  return references;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings. */
export function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  for (const { text } of proseLines(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6}\s+(.*)$/.exec(text);
    if (heading !== null) anchors.add(headingAnchor(heading[1]!));
  }
  return anchors;
}

/** What is wrong with a link, or undefined when its file (and heading) exist. */
export function brokenLink(reference: Reference): string | undefined {
  const [path = '', anchor] = reference.target.split('#');
  const file = path === '' ? join(REPO_ROOT, reference.document) : join(REPO_ROOT, dirname(reference.document), path);
  const where = `${reference.document}:${reference.line}: ${reference.target}`;
  if (!existsSync(file)) return `${where}: ${relative(REPO_ROOT, file)} does not exist`;
  if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor)) return `${where}: no heading #${anchor} in ${relative(REPO_ROOT, file)}`;
  return undefined;
}

/** The fenced block that follows `<!-- NAME -->` in a document. */
export function markedBlock(document: string, name: string): string {
  const text = readFileSync(join(REPO_ROOT, document), 'utf8');
  const start = text.indexOf(`<!-- ${name} -->`);
  if (start < 0) throw new Error(`${document} has no <!-- ${name} --> marker`);
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(text.slice(start));
  if (block === null) throw new Error(`no fenced block follows <!-- ${name} --> in ${document}`);
  return block[1]!;
}

/** The rows of the table that follows `<!-- NAME -->`: each row's cells, the header and the rule left out. */
export function markedTable(document: string, name: string): string[][] {
  const text = readFileSync(join(REPO_ROOT, document), 'utf8');
  const start = text.indexOf(`<!-- ${name} -->`);
  if (start < 0) throw new Error(`${document} has no <!-- ${name} --> marker`);
  const lines = text.slice(start).split('\n').slice(1);
  const rows: string[][] = [];
  for (const line of lines) {
    if (!line.startsWith('|')) break;
    // A `\|` inside a cell is an escaped pipe, not a cell border.
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|')));
  }
  return rows.slice(2);
}

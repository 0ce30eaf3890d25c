import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { REPO_ROOT, brokenLink, documentedFiles, markedTable, mentionedPaths, relativeLinks } from '../helpers/markdown-references.js';

/**
 * A newcomer follows the README and docs/: every link and every repository path they name must
 * exist, and the README's command table must be the command line `dagent --help` describes.
 */
const run = promisify(execFile);

async function help(...command: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [DAGENT_BIN, ...command, '--help'], { cwd: REPO_ROOT, env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' } });
  return stdout;
}

/** `dagent X` lines of the main help's Commands section: the commands the binary has. */
function commandsOf(mainHelp: string): string[] {
  const section = mainHelp.slice(mainHelp.indexOf('Commands:'), mainHelp.indexOf('Options:'));
  return [...section.matchAll(/^ {2}dagent (\S+)/gm)].map((match) => match[1]!);
}

/** The flags a table cell names (`--approved`, `-j`); `--no-x` is yargs' negation of `--x`. */
function flagsOf(cell: string): string[] {
  return [...cell.matchAll(/(?<![\w-])(--?[a-z][a-z-]*)/g)].map((match) => match[1]!.replace(/^--no-/, '--'));
}

describe('the documentation\'s references', () => {
  it('covers the README, every file of docs/ and examples/README.md', () => {
    const files = documentedFiles();
    expect(files).toContain('README.md');
    expect(files).toContain(join('docs', 'README.md'));
    expect(files).toContain(join('examples', 'README.md'));
  });

  it('has no relative link to a file or heading that does not exist', () => {
    const references = documentedFiles().flatMap(relativeLinks);
    expect(references.length).toBeGreaterThan(20);
    expect(references.map(brokenLink).filter((problem) => problem !== undefined)).toEqual([]);
  });

  it('names no repository path that does not exist', () => {
    const references = documentedFiles().flatMap(mentionedPaths);
    expect(references.length).toBeGreaterThan(10);
    const missing = references.filter((reference) => !existsSync(join(REPO_ROOT, reference.target)));
    expect(missing.map((reference) => `${reference.document}:${reference.line}: ${reference.target}`)).toEqual([]);
  });

  it('lists every file of docs/ in the docs index', () => {
    const index = readFileSync(join(REPO_ROOT, 'docs', 'README.md'), 'utf8');
    const unlisted = readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'README.md' && !index.includes(`](${name})`));
    expect(unlisted, 'docs/ files missing from the table of docs/README.md (add a row)').toEqual([]);
  });
});

describe('the README\'s command table', () => {
  let mainHelp: string;
  let rows: { command: string; flags: string[] }[];

  beforeAll(async () => {
    mainHelp = await help();
    rows = markedTable('README.md', 'command-table').map((cells) => {
      const usage = /`([^`]+)`/.exec(cells[0] ?? '')?.[1] ?? '';
      return { command: usage.split(' ')[0] ?? '', flags: flagsOf(usage) };
    });
  });

  it('lists each command of `dagent --help` exactly once', () => {
    const listed = rows.map((row) => row.command);
    expect(new Set(listed).size, `listed twice: ${listed.filter((name, index) => listed.indexOf(name) !== index).join(', ')}`).toBe(listed.length);
    const commands = commandsOf(mainHelp);
    const missing = commands.filter((name) => !listed.includes(name));
    const extra = listed.filter((name) => !commands.includes(name));
    expect(missing, 'commands of `dagent --help` missing from the README\'s command table (add a row)').toEqual([]);
    expect(extra, 'rows of the README\'s command table that `dagent --help` does not list').toEqual([]);
  });

  it('names only flags that the command\'s own help lists', async () => {
    const unknown: string[] = [];
    // Each command's help at once: one process start after another took most of the time limit on a loaded machine.
    const texts = await Promise.all(rows.map((row) => help(row.command)));
    for (const [index, row] of rows.entries()) {
      const text = texts[index]!;
      for (const flag of row.flags) if (!new RegExp(`(^|[\\s,])${flag}(?![\\w-])`, 'm').test(text)) unknown.push(`${row.command} ${flag}`);
    }
    expect(unknown).toEqual([]);
  }, 120_000);

  it('describes the global options that `dagent --help` lists', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const paragraph = readme.slice(readme.indexOf('Global options:'), readme.indexOf('<!-- command-table -->'));
    const named = flagsOf(paragraph);
    for (const flag of named) expect(mainHelp, flag).toMatch(new RegExp(`(^|[\\s,])${flag}(?![\\w-])`, 'm'));
    for (const flag of ['--workspace', '--db', '--model', '--base-url', '--approval', '--json', '--sandbox']) expect(named, flag).toContain(flag);
  });
});

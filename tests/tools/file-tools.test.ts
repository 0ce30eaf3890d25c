import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WriteScope } from '../../engine/index.js';
import { createToolRuntime, MAX_GREP_MATCHES, type LocalToolRuntime } from '../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../helpers/tools-test-bed.js';

let bed: ToolTestBed;
let runtime: LocalToolRuntime;

function write(relative: string, content: string | Buffer): void {
  const path = join(bed.workspace, relative);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

function read(relative: string): string {
  return readFileSync(join(bed.workspace, relative), 'utf8');
}

beforeEach(async () => {
  bed = await openToolTestBed();
  runtime = createToolRuntime();
  write('src/shape.ts', 'export interface Shape {\n  area(): number;\n}\n');
  write('src/circle.ts', "import type { Shape } from './shape';\nexport class Circle implements Shape {\n  area(): number {\n    return 3;\n  }\n}\n");
  write('src/lib/util.ts', 'export const util = 1;\n');
  write('dist/bundle.js', 'area()\n');
  write('notes/log.txt', 'area of log\n');
  write('.gitignore', 'dist/\n*.log\n');
  write('src/.gitignore', 'generated.ts\n');
  write('src/generated.ts', 'area()\n');
  write('build.log', 'area\n');
  write('.git/config', '[core] area\n');
  write('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
});
afterEach(async () => bed.cleanup());

describe('list_files', () => {
  it('lists paths and kinds recursively, skipping .git and .gitignored entries', async () => {
    symlinkSync(bed.outside, join(bed.workspace, 'out-link'));
    const result = await bed.call(runtime, 'list_files', {});
    expect(result.content.split('\n')).toEqual([
      'file .gitignore',
      'file image.png',
      'dir  notes/',
      'file notes/log.txt',
      'link out-link',
      'dir  src/',
      'file src/.gitignore',
      'file src/circle.ts',
      'dir  src/lib/',
      'file src/lib/util.ts',
      'file src/shape.ts',
    ]);
    expect(result.meta).toMatchObject({ outcome: 'ok', path: '.', entries: 11 });
  });

  it('filters by a glob: by name at any depth without a slash, by path with one', async () => {
    expect((await bed.call(runtime, 'list_files', { pattern: '*.ts' })).content).toBe('file src/circle.ts\nfile src/lib/util.ts\nfile src/shape.ts');
    expect((await bed.call(runtime, 'list_files', { path: 'src', pattern: 'lib/**' })).content).toBe('dir  src/lib/\nfile src/lib/util.ts');
    expect((await bed.call(runtime, 'list_files', { pattern: '*.py' })).content).toBe('no entries under . matching *.py (.git and .gitignored paths are skipped)');
  });

  it('lists an ignored folder asked for by name', async () => {
    const result = await bed.call(runtime, 'list_files', { path: 'dist' });
    expect(result.content).toBe('file dist/bundle.js\n(dist is ignored by .gitignore; listed because it was asked for by name)');
  });

  it('refuses paths outside the workspace and bad globs', async () => {
    const outside = await bed.call(runtime, 'list_files', { path: '..' });
    expect(outside).toMatchObject({ isError: true, meta: { outcome: 'refused' } });
    expect(outside.content).toBe(`refused: path ".." is outside the workspace ${bed.workspace}; use a path relative to the workspace root`);
    expect((await bed.call(runtime, 'list_files', { pattern: '../*' })).content).toMatch(/^error: glob "\.\.\/\*" must be relative/);
    expect((await bed.call(runtime, 'list_files', { path: 'missing' })).content).toBe('error: missing: no such file or directory');
  });
});

describe('read_file', () => {
  it('shows numbered lines with path and content type in meta', async () => {
    const result = await bed.call(runtime, 'read_file', { path: 'src/shape.ts' });
    expect(result.content).toBe('     1\texport interface Shape {\n     2\t  area(): number;\n     3\t}');
    expect(result.meta).toMatchObject({ outcome: 'ok', path: 'src/shape.ts', contentType: 'text/plain', totalLines: 3, truncated: false, startLine: 1, endLine: 3 });
  });

  it('pages by offset and limit and says how to continue', async () => {
    write('long.txt', Array.from({ length: 10 }, (_, index) => `row ${index + 1}`).join('\n'));
    const page = await bed.call(runtime, 'read_file', { path: 'long.txt', offset: 3, limit: 2 });
    expect(page.content).toBe('     3\trow 3\n     4\trow 4\n(lines 3-4 of 10; call read_file with offset 5 to read on)');
    expect(page.meta).toMatchObject({ truncated: true, startLine: 3, endLine: 4, totalLines: 10 });
    expect((await bed.call(runtime, 'read_file', { path: 'long.txt', offset: 20 })).content).toBe('error: offset 20 is past the end of long.txt, which has 10 lines');
  });

  it('caps long files and long lines', async () => {
    write('big.txt', `${'x'.repeat(5_000)}\n${Array.from({ length: 3_000 }, (_, index) => `line ${index}`).join('\n')}`);
    const result = await bed.call(runtime, 'read_file', { path: 'big.txt' });
    expect(result.meta).toMatchObject({ truncated: true, totalLines: 3_001, startLine: 1, endLine: 2_000 });
    expect(result.content).toContain('… [line cut]');
    expect(result.content).toMatch(/\(lines 1-2000 of 3001; call read_file with offset 2001 to read on\)\n\(1 long lines were cut at 2000 characters\)$/);
  });

  it('refuses binary files, folders and files outside with clear errors', async () => {
    expect((await bed.call(runtime, 'read_file', { path: 'image.png' })).content).toBe('error: image.png is a binary file (image/png, 7 bytes); read_file shows text files only');
    expect((await bed.call(runtime, 'read_file', { path: 'src' })).content).toBe('error: src is a directory; list_files lists its contents');
    expect((await bed.call(runtime, 'read_file', { path: 'nope.ts' })).content).toBe('error: nope.ts: no such file or directory');
    symlinkSync(join(bed.outside), join(bed.workspace, 'escape'));
    writeFileSync(join(bed.outside, 'secret'), 'secret');
    const escape = await bed.call(runtime, 'read_file', { path: 'escape/secret' });
    expect(escape.meta.outcome).toBe('refused');
    expect(escape.content).not.toContain('secret\n');
  });

  it('says when a file is empty', async () => {
    write('empty.txt', '');
    expect((await bed.call(runtime, 'read_file', { path: 'empty.txt' })).content).toBe('(empty.txt is empty)');
  });
});

describe('grep', () => {
  it('prints path:line:text for matches, skipping .git, ignored and binary files', async () => {
    const result = await bed.call(runtime, 'grep', { pattern: 'area\\(\\)' });
    expect(result.content).toBe('src/circle.ts:3:  area(): number {\nsrc/shape.ts:2:  area(): number;');
    expect(result.meta).toMatchObject({ outcome: 'ok', path: '.', matches: 2, truncated: false });
  });

  it('limits by path and glob, and searches a single file', async () => {
    expect((await bed.call(runtime, 'grep', { pattern: 'area', path: 'notes' })).content).toBe('notes/log.txt:1:area of log');
    expect((await bed.call(runtime, 'grep', { pattern: 'Shape', glob: 'circle.*' })).content).toBe(
      "src/circle.ts:1:import type { Shape } from './shape';\nsrc/circle.ts:2:export class Circle implements Shape {",
    );
    expect((await bed.call(runtime, 'grep', { pattern: '^export', path: 'src/lib/util.ts' })).content).toBe('src/lib/util.ts:1:export const util = 1;');
  });

  it('explains an invalid regular expression and an empty result', async () => {
    const invalid = await bed.call(runtime, 'grep', { pattern: 'area(' });
    expect(invalid).toMatchObject({ isError: true, meta: { outcome: 'error' } });
    expect(invalid.content).toBe(
      'error: invalid regular expression "area(": /area(/: Unterminated group. grep takes a JavaScript regular expression; escape ( ) [ ] { } . * + ? | with a backslash to match them literally',
    );
    expect((await bed.call(runtime, 'grep', { pattern: 'zzz' })).content).toMatch(/^no matches for "zzz" in \. \(\d+ files searched;/);
  });

  it('caps the number of matches', async () => {
    write('many.txt', Array.from({ length: MAX_GREP_MATCHES + 20 }, () => 'hit').join('\n'));
    const result = await bed.call(runtime, 'grep', { pattern: 'hit', path: 'many.txt' });
    expect(result.content.split('\n')).toHaveLength(MAX_GREP_MATCHES + 1);
    expect(result.content).toMatch(/\(stopped after 250 matches; narrow the pattern, path or glob to see the rest\)$/);
    expect(result.meta.truncated).toBe(true);
  });
});

describe('write_file', () => {
  it('creates and replaces files, creating folders', async () => {
    const created = await bed.call(runtime, 'write_file', { path: 'src/new/square.ts', content: 'a\nb\n' });
    expect(created.content).toBe('created src/new/square.ts (2 lines, 4 bytes)');
    expect(created.meta).toMatchObject({ outcome: 'ok', path: 'src/new/square.ts', created: true });
    expect((await bed.call(runtime, 'write_file', { path: 'src/new/square.ts', content: 'c' })).content).toBe('replaced src/new/square.ts (1 lines, 1 bytes)');
    expect(read('src/new/square.ts')).toBe('c');
  });

  it('refuses .git, .dagent and paths outside before asking anyone', async () => {
    for (const path of ['.git/hooks/pre-commit', '.dagent/config.json', '../outside/x.txt']) {
      const result = await bed.call(runtime, 'write_file', { path, content: 'x' });
      expect(result.meta.outcome).toBe('refused');
      expect(result.content).toMatch(/^refused: path ".+" (is inside \.git\/|is inside \.dagent\/|is outside the workspace)/);
    }
    expect((await bed.events()).some((event) => event.type === 'approval/requested')).toBe(false);
  });

  it('honours the node write scope: refusal text, and the snapshot hook before each write', async () => {
    const before: string[] = [];
    const writeScope: WriteScope = {
      check: (path) => (path.startsWith('src/') ? undefined : `${path} is not in this node's writes (src/**)`),
      beforeWrite: async (path) => {
        before.push(`${path}=${readFileSync(join(bed.workspace, path), 'utf8')}`);
      },
    };
    const refused = await bed.call(runtime, 'write_file', { path: 'README.md', content: 'x' }, { writeScope });
    expect(refused.meta.outcome).toBe('refused');
    expect(refused.content).toBe(
      "refused: README.md is not in this node's writes (src/**). If this file must change for the task, call report_missing_work with the file and the reason instead of writing it. This is refused under every approval policy; do not retry it, find another way.",
    );
    await bed.call(runtime, 'edit_file', { path: 'src/shape.ts', old_string: 'area()', new_string: 'getArea()' }, { writeScope });
    expect(before).toEqual(['src/shape.ts=export interface Shape {\n  area(): number;\n}\n']);
  });
});

describe('edit_file', () => {
  it('replaces a unique occurrence and shows the diff', async () => {
    const result = await bed.call(runtime, 'edit_file', { path: 'src/shape.ts', old_string: '  area(): number;', new_string: '  getArea(): number;' });
    expect(result.content).toBe(
      'edited src/shape.ts: replaced 1 occurrence (line 2)\n@@ -1,3 +1,3 @@\n export interface Shape {\n-  area(): number;\n+  getArea(): number;\n }',
    );
    expect(result.meta).toMatchObject({ outcome: 'ok', path: 'src/shape.ts', replacements: 1 });
    expect(read('src/shape.ts')).toBe('export interface Shape {\n  getArea(): number;\n}\n');
  });

  it('refuses an ambiguous old_string with the count and lines, unless replace_all', async () => {
    write('dup.ts', 'x = 1\ny = 2\nx = 1\n');
    const ambiguous = await bed.call(runtime, 'edit_file', { path: 'dup.ts', old_string: 'x = 1', new_string: 'x = 3' });
    expect(ambiguous.content).toBe(
      'error: old_string occurs 2 times in dup.ts (lines 1, 3); include more surrounding lines to make it unique, or set replace_all to true to change every occurrence',
    );
    expect(read('dup.ts')).toBe('x = 1\ny = 2\nx = 1\n');
    const all = await bed.call(runtime, 'edit_file', { path: 'dup.ts', old_string: 'x = 1', new_string: 'x = $&3', replace_all: true });
    expect(all.content.split('\n')[0]).toBe('edited dup.ts: replaced 2 occurrences (lines 1, 3)');
    expect(read('dup.ts')).toBe('x = $&3\ny = 2\nx = $&3\n');
  });

  it('points at the closest line when old_string is missing', async () => {
    const missing = await bed.call(runtime, 'edit_file', { path: 'src/circle.ts', old_string: 'area(): numbr {', new_string: 'x' });
    expect(missing).toMatchObject({ isError: true, meta: { outcome: 'error' } });
    expect(missing.content).toBe('error: old_string was not found in src/circle.ts; the closest line is 3: "area(): number {"');
    const spacing = await bed.call(runtime, 'edit_file', { path: 'src/shape.ts', old_string: 'interface Shape {\narea(): number;', new_string: 'x' });
    expect(spacing.content).toMatch(/matches when whitespace is ignored/);
  });

  it('edits files with CRLF line endings given LF text', async () => {
    write('win.txt', 'one\r\ntwo\r\nthree\r\n');
    await bed.call(runtime, 'edit_file', { path: 'win.txt', old_string: 'one\ntwo', new_string: 'one\n2' });
    expect(read('win.txt')).toBe('one\r\n2\r\nthree\r\n');
  });

  it('explains the other mistakes', async () => {
    expect((await bed.call(runtime, 'edit_file', { path: 'src/shape.ts', old_string: '', new_string: 'x' })).content).toBe(
      'error: old_string is empty; to create or overwrite a whole file use write_file',
    );
    expect((await bed.call(runtime, 'edit_file', { path: 'src/shape.ts', old_string: 'a', new_string: 'a' })).content).toBe(
      'error: old_string and new_string are identical; nothing would change',
    );
    expect((await bed.call(runtime, 'edit_file', { path: 'nope.ts', old_string: 'a', new_string: 'b' })).content).toBe('error: nope.ts does not exist; create it with write_file');
    expect((await bed.call(runtime, 'edit_file', { path: 'image.png', old_string: 'P', new_string: 'Q' })).content).toBe('error: image.png is a binary file; edit_file changes text files only');
  });

  it('keeps the file mode when editing', async () => {
    write('run.sh', '#!/bin/sh\necho a\n');
    chmodSync(join(bed.workspace, 'run.sh'), 0o755);
    await bed.call(runtime, 'edit_file', { path: 'run.sh', old_string: 'echo a', new_string: 'echo b' });
    expect(read('run.sh')).toBe('#!/bin/sh\necho b\n');
  });
});

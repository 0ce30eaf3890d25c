import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGrepTool, createToolRuntime, LocalToolRuntime, type LocalToolRuntime as Runtime } from '../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../helpers/tools-test-bed.js';

/**
 * Bounded work: a pattern or an edit written by an attacker cannot freeze dagent. A catastrophic
 * grep pattern is stopped and explained while the process keeps running; edit_file is linear in
 * the file on an ambiguous old_string, and refuses a file past its size cap with a clear error.
 */

let bed: ToolTestBed;
let runtime: Runtime;

beforeEach(async () => {
  bed = await openToolTestBed();
  runtime = createToolRuntime();
});
afterEach(async () => bed.cleanup());

function write(relative: string, content: string): void {
  const path = join(bed.workspace, relative);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
}

describe('grep with a catastrophic pattern', () => {
  it('is stopped after its budget with an explanation, and the process keeps running meanwhile', async () => {
    // (a+)+$ against "aaaa…a!" backtracks 2^n times: 28 letters keep V8 busy for tens of seconds.
    write('src/evil.txt', `ok line\n${'a'.repeat(28)}!\n`);
    const grep = new LocalToolRuntime({ tools: [createGrepTool({ matchBudgetMs: 300 })] });
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 10);

    const result = await bed.call(grep, 'grep', { pattern: '(a+)+$' }).finally(() => clearInterval(ticker));

    expect(result.isError).toBe(true);
    expect(result.content).toContain('backtracks catastrophically');
    // The main thread was never blocked: timers kept firing while the pattern ran.
    expect(ticks).toBeGreaterThan(5);
  });

  it('stops when the call is cancelled', async () => {
    write('src/evil.txt', `${'a'.repeat(28)}!\n`);
    const controller = new AbortController();
    const call = bed.call(runtime, 'grep', { pattern: '(a+)+$' }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('cancelled by the user')), 100);

    const result = await call;

    expect(result.isError).toBe(true);
  });

  it('still finds ordinary matches, with lookbehind and backreferences', async () => {
    write('src/a.ts', 'const total = price * 2;\nconst total2 = total;\nlet xx = 1;\n');
    expect((await bed.call(runtime, 'grep', { pattern: '(?<=const )total\\b' })).content).toBe('src/a.ts:1:const total = price * 2;');
    expect((await bed.call(runtime, 'grep', { pattern: '(\\w)\\1 =' })).content).toBe('src/a.ts:3:let xx = 1;');
  });
});

describe('edit_file on large and ambiguous input', () => {
  // 400 KB where old_string occurs on every line: the old code located each occurrence's line by
  // rescanning the file from its start, quadratic (over 100 s for this size).
  const AMBIGUOUS = 'value = 1;\n'.repeat(400 * 1024 / 11);

  it('reports an ambiguous old_string in a 400 KB file with its count and first lines', async () => {
    write('big.txt', AMBIGUOUS);

    const result = await bed.call(runtime, 'edit_file', { path: 'big.txt', old_string: 'value = 1;', new_string: 'value = 2;' });

    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/old_string occurs 37236 times in big\.txt \(lines 1, 2, 3, .*, 20, …\)/);
    expect(readFileSync(join(bed.workspace, 'big.txt'), 'utf8')).toBe(AMBIGUOUS);
  });

  it('replaces every occurrence in a 400 KB file and shows the changed lines', async () => {
    write('big.txt', AMBIGUOUS);

    const result = await bed.call(runtime, 'edit_file', { path: 'big.txt', old_string: 'value = 1;', new_string: 'value = 2;', replace_all: true });

    expect(result.isError, result.content).toBe(false);
    expect(result.content).toContain('replaced 37236 occurrences');
    expect(result.content).toContain('-value = 1;\n+value = 2;');
    expect(readFileSync(join(bed.workspace, 'big.txt'), 'utf8')).toBe(AMBIGUOUS.replaceAll('value = 1;', 'value = 2;'));
  });

  it('refuses a 50 MB file with a clear error and leaves it alone', async () => {
    const huge = 'x'.repeat(50 * 1024 * 1024);
    write('huge.txt', huge);

    const result = await bed.call(runtime, 'edit_file', { path: 'huge.txt', old_string: 'xx', new_string: 'y' });

    expect(result.isError).toBe(true);
    expect(result.content).toBe('error: huge.txt is 50 MB; edit_file edits files up to 10 MB. Change a file this large with a command (run_command, e.g. sed), or split it');
    expect(readFileSync(join(bed.workspace, 'huge.txt')).length).toBe(huge.length);
  });
});

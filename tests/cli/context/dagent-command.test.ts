import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dagentCommand } from '../../../cli/context/dagent-command.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * The demo ends with commands to look around. A user who installed dagent (`npm install -g`) runs
 * `dagent`; `npx dagent` would ask the npm registry, where dagent is not, and fail with a 404.
 */

let temp: { dir: string; cleanup: () => void };
let script: string;

beforeEach(() => {
  temp = tempDir('dagent-command-');
  mkdirSync(join(temp.dir, 'package', 'bin'), { recursive: true });
  script = join(temp.dir, 'package', 'bin', 'dagent.js');
  writeFileSync(script, '');
});

afterEach(() => temp.cleanup());

describe('the command a hint names', () => {
  it('is dagent when the dagent on PATH is this program, as npm install -g links it', () => {
    const prefixBin = join(temp.dir, 'prefix', 'bin');
    mkdirSync(prefixBin, { recursive: true });
    symlinkSync(script, join(prefixBin, 'dagent'));

    expect(dagentCommand(join(prefixBin, 'dagent'), { PATH: ['/usr/bin', prefixBin].join(delimiter) })).toBe('dagent');
  });

  it('is npx dagent inside a clone, where no dagent (or another one) is on PATH', () => {
    const otherBin = join(temp.dir, 'other', 'bin');
    mkdirSync(otherBin, { recursive: true });
    writeFileSync(join(otherBin, 'dagent'), '');

    expect(dagentCommand(script, { PATH: '/usr/bin' })).toBe('npx dagent');
    expect(dagentCommand(script, { PATH: otherBin })).toBe('npx dagent');
  });

  it('is npx dagent under npx, whose own PATH entries (its cache, node_modules/.bin) the user does not have', () => {
    const npxBin = join(temp.dir, '.npm', '_npx', '556c119dfcb36933', 'node_modules', '.bin');
    mkdirSync(npxBin, { recursive: true });
    symlinkSync(script, join(npxBin, 'dagent'));
    const projectBin = join(temp.dir, 'clone', 'node_modules', '.bin');
    mkdirSync(projectBin, { recursive: true });
    symlinkSync(script, join(projectBin, 'dagent'));

    expect(dagentCommand(join(npxBin, 'dagent'), { PATH: [npxBin, projectBin, '/usr/bin'].join(delimiter) })).toBe('npx dagent');
  });
});

import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkCommand, createToolRuntime, type CommandCheckOptions } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';
import PAYLOADS from './outside-paths.json' with { type: 'json' };

/**
 * Without a sandbox the command checker is the guard: a destructive command aimed outside the
 * workspace is refused under every policy, `auto` included, also when the workspace lives in the
 * temp folder (a sibling folder there is outside, not scratch) and when a symbolic link inside the
 * workspace leads out. Each payload aims only at a canary folder beside the workspace, in a temp
 * root the test makes and treats as the temp folder (as /tmp is when a demo or eval workspace
 * lives there); HOME is a folder of that root.
 */

let bed: ToolTestBed;
let root: string;
let canary: string;
let home: string;

beforeEach(async () => {
  bed = await openToolTestBed();
  root = dirname(bed.workspace);
  canary = bed.outside;
  home = join(root, 'home');
  mkdirSync(home);
  mkdirSync(join(canary, 'sub'));
  writeFileSync(join(canary, 'target.txt'), 'keep\n');
  writeFileSync(join(canary, 'sub', 'keep.txt'), 'keep\n');
  writeFileSync(join(bed.workspace, 'notes.txt'), 'notes\n');
  mkdirSync(join(bed.workspace, 'build'));
  writeFileSync(join(bed.workspace, 'build', 'out.js'), 'built\n');
  mkdirSync(join(bed.workspace, 'node_modules', 'pkg'), { recursive: true });
  writeFileSync(join(bed.workspace, 'node_modules', 'pkg', 'index.js'), 'module\n');
  symlinkSync(canary, join(bed.workspace, 'link-out'));
  symlinkSync(root, join(bed.workspace, 'link-up'));
});

afterEach(async () => {
  await bed.cleanup();
});

function expand(payload: string): string {
  return payload.replaceAll('{CANARY}', canary).replaceAll('{ROOT}', root);
}

function checkOptions(): CommandCheckOptions {
  return { workspace: bed.workspace, home, scratchDirectories: [tmpdir(), root] };
}

/** Every file under the canary with its content. */
function canaryState(): Record<string, string> {
  const state: Record<string, string> = {};
  const visit = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) visit(full);
      else state[relative(canary, full)] = `${lstatSync(full).mode} ${readFileSync(full, 'utf8')}`;
    }
  };
  visit(canary);
  return state;
}

function runtime() {
  return createToolRuntime({
    approval: 'auto',
    runCommand: { confinement: { kind: 'disabled' }, env: { HOME: home, PATH: process.env.PATH }, home, scratchDirectories: [tmpdir(), root] },
  });
}

describe('the command checker, on a real file system', () => {
  it.each(PAYLOADS.refused)('refuses %j: it reaches outside the workspace', (payload) => {
    const verdict = checkCommand(expand(payload), checkOptions());
    expect(verdict.class).toBe('dangerous');
  });

  it.each(PAYLOADS.allowed)('lets %j through as risky', (payload) => {
    expect(checkCommand(expand(payload), checkOptions()).class).toBe('risky');
  });

  it.each([
    ['rm -rf ../outside', `rm ../outside deletes outside the workspace (CANARY already exists; in the temp folder ROOT a command may only make new files and folders of its own)`],
    ['rm -rf link-out/', 'rm link-out/ deletes outside the workspace (link-out/ leads to CANARY through a symbolic link)'],
    ['echo pwned > link-out/target.txt', 'redirects output to link-out/target.txt: it writes outside the workspace (link-out/target.txt leads to CANARY/target.txt through a symbolic link)'],
    ['rm -rf link-up/', 'rm link-up/ deletes the whole workspace or a folder that contains it (link-up/ leads to ROOT through a symbolic link)'],
  ])('says what %j reaches and where', (command, reason) => {
    const verdict = checkCommand(command, checkOptions());
    expect(verdict.reasons).toEqual([reason.replaceAll('CANARY', canary).replaceAll('ROOT', root)]);
  });
});

describe('a read through a link named plainly, or in a folder outside', () => {
  beforeEach(() => {
    symlinkSync(join(canary, 'target.txt'), join(bed.workspace, 'notes'));
  });

  it.each(['cat notes', 'grep keep notes', 'head -n 1 ./notes', 'cat link-out/target.txt', 'ls link-out', 'wc -l link-out/*', 'cd link-out && cat target.txt'])(
    '%j is risky, not safe: it reads outside the workspace',
    (command) => {
      expect(checkCommand(command, checkOptions()).class).toBe('risky');
    },
  );

  it('says where the link leads', () => {
    const verdict = checkCommand('cat notes', checkOptions());

    expect(verdict.reasons).toEqual([`cat reads notes, outside the workspace (notes leads to ${canary}/target.txt through a symbolic link)`]);
  });

  it.each(['cd link-out && ls', 'cd .. && ls', 'cd link-out && grep -r keep', 'cd link-out && find -name target.txt', 'cd $SOMEWHERE && cat notes.txt'])(
    '%j is risky, not safe: the folder it reads is outside the workspace, or only known when it runs',
    (command) => {
      expect(checkCommand(command, checkOptions()).class).toBe('risky');
    },
  );

  it('says which folder a read with no path reads', () => {
    const verdict = checkCommand('cd link-out && ls', checkOptions());

    expect(verdict.reasons).toEqual([`ls reads the folder it runs in, ${canary}, outside the workspace`]);
  });

  it('leaves files of the workspace, and words that name nothing, safe', () => {
    const commands = ['cat notes.txt', 'head -n 20 build/out.js', 'grep -c keep missing.txt', 'ls', 'grep -r keep', 'cd build && ls', 'cd'];

    expect(commands.map((command) => checkCommand(command, checkOptions()).class)).toEqual(commands.map(() => 'safe'));
  });
});

describe('run_command without a sandbox, under --approval auto', () => {
  it.each(PAYLOADS.refused)('refuses %j, and the canary stays', async (payload) => {
    const before = canaryState();

    const result = await bed.call(runtime(), 'run_command', { command: expand(payload) });

    expect(result.meta.outcome).toBe('refused');
    expect(result.content).toMatch(/outside the workspace|not inside the workspace|a folder that contains it/);
    expect(canaryState()).toEqual(before);
    expect(readlinkSync(join(bed.workspace, 'link-out'))).toBe(canary);
  });

  it.each(PAYLOADS.allowed)('runs %j, and the canary stays', async (payload) => {
    const before = canaryState();

    const result = await bed.call(runtime(), 'run_command', { command: expand(payload) });

    expect([result.meta.outcome, result.content]).toEqual(['ok', expect.stringContaining('exit code 0')]);
    expect(canaryState()).toEqual(before);
  });

  it('deletes inside the workspace, removes a link without what it leads to, and writes new files in the temp folder', async () => {
    for (const command of ['rm -rf build node_modules', 'rm link-out', `echo log > ${root}/scratch.log`]) {
      expect((await bed.call(runtime(), 'run_command', { command })).meta.outcome).toBe('ok');
    }

    expect([existsSync(join(bed.workspace, 'build')), existsSync(join(bed.workspace, 'node_modules')), existsSync(join(bed.workspace, 'link-out'))]).toEqual([false, false, false]);
    expect(readFileSync(join(canary, 'target.txt'), 'utf8')).toBe('keep\n');
    expect(readFileSync(join(root, 'scratch.log'), 'utf8')).toBe('log\n');
  });
});

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../../tools/index.js';

/**
 * The bubblewrap probe starts sandboxes and waits for them on the one thread: a worker composes a
 * runtime for every run it serves. A level that started is kept for the process; a probe that
 * found none is run again, since the machine may have been fixed meanwhile.
 */
describe.skipIf(process.platform !== 'linux')('the bubblewrap probe', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dagent-probe-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A stand-in `bwrap` that notes each start in `starts` and exits with the code in `exit-code`. */
  function fakeBwrap(name: string, exitCode: number): { program: string; starts: () => number; setExit: (code: number) => void } {
    const program = join(dir, name);
    const starts = join(dir, `${name}.starts`);
    const exitFile = join(dir, `${name}.exit`);
    writeFileSync(exitFile, String(exitCode));
    writeFileSync(program, `#!/bin/sh\necho started >> '${starts}'\nexit "$(cat '${exitFile}')"\n`);
    chmodSync(program, 0o755);
    return {
      program,
      starts: () => {
        try {
          return readFileSync(starts, 'utf8').split('\n').filter(Boolean).length;
        } catch {
          return 0;
        }
      },
      setExit: (code) => writeFileSync(exitFile, String(code)),
    };
  }

  it('asks bubblewrap once per process when it starts a sandbox', () => {
    const bwrap = fakeBwrap('bwrap-ok', 0);

    const first = detectSandbox({ bwrapPath: bwrap.program, platform: 'linux' });
    const second = detectSandbox({ bwrapPath: bwrap.program, platform: 'linux' });

    expect(first).toMatchObject({ available: true, kind: 'bubblewrap', program: bwrap.program });
    expect(second).toEqual(first);
    expect(bwrap.starts()).toBe(1);
  });

  it('tries again after a probe that started none, and keeps the level once one starts', () => {
    const bwrap = fakeBwrap('bwrap-refusing', 1);

    expect(detectSandbox({ bwrapPath: bwrap.program, platform: 'linux' })).toMatchObject({ available: false });
    const afterFirst = bwrap.starts();
    expect(afterFirst).toBeGreaterThan(0);
    bwrap.setExit(0);
    expect(detectSandbox({ bwrapPath: bwrap.program, platform: 'linux' })).toMatchObject({ available: true });
    expect(detectSandbox({ bwrapPath: bwrap.program, platform: 'linux' })).toMatchObject({ available: true });

    expect(bwrap.starts()).toBe(afterFirst + 1);
  });
});

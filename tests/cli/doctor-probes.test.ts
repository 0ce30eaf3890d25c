import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../tools/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/** `dagent doctor` checks the sandbox from inside it, and says so line by line. */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  temp = tempDir('dagent-doctor-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(workspace);
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), PATH: process.env.PATH };
});

afterEach(() => temp.cleanup());

const sandbox = detectSandbox();

describe.skipIf(!sandbox.available || sandbox.kind !== 'bubblewrap')('doctor on Linux', () => {
  it('reports the probes it ran inside the sandbox: no capabilities, the seccomp filter, a mount and new namespaces refused', async () => {
    const doctor = await runCli(['doctor'], { cwd: workspace, env });
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toMatch(/^probe +ok {4}capabilities: CapEff 0{16} \(none\)$/m);
    expect(doctor.stdout).toMatch(/^probe +ok {4}mount: refused/m);
    expect(doctor.stdout).toMatch(/^probe +ok {4}mount-namespace: refused/m);
    expect(doctor.stdout).toMatch(/^probe +ok {4}user-namespace: refused/m);
    expect(doctor.stdout).toMatch(/^probe +ok {4}create-\.git: refused/m);
    expect(doctor.stdout).toMatch(/^probe +ok {4}write-outside: refused/m);
  });

  it.skipIf(process.getuid?.() !== 0)('fails, naming what broke, when the sandbox leaves root its capabilities', async () => {
    const fake = join(temp.dir, 'bwrap');
    copyFileSync(new URL('../fixtures/bwrap-without-confinement.sh', import.meta.url), fake);
    chmodSync(fake, 0o755);
    const doctor = await runCli(['doctor'], { cwd: workspace, env: { ...env, DAGENT_BWRAP: fake } });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^probe +FAIL {2}capabilities: CapEff 0*[1-9a-f][0-9a-f]* — the sandbox does not hold here$/m);
    expect(doctor.stdout).toMatch(/^probe +FAIL {2}mount: allowed/m);
  });
});

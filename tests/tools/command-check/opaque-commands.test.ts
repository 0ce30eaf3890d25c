import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkCommand } from '../../../tools/command-check/index.js';
import { createToolRuntime } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';
import PAYLOADS from './opaque-commands.json' with { type: 'json' };

/**
 * Without a sandbox (`--no-sandbox`), the command checker is all that stands in front of a
 * command. A command whose text does not show what it runs (its name from a variable, a script
 * fed to a shell through a here-string, a here-document or a pipe, a script built by a
 * substitution, a line the checker cannot parse) is refused under every approval policy, `auto`
 * included, with the reason and the next step. Each payload aims only at a canary folder under a
 * temporary directory, with HOME pointed at another temporary directory.
 */

let bed: ToolTestBed;
let temp: string;
let canary: string;

beforeEach(async () => {
  bed = await openToolTestBed();
  temp = realpathSync(mkdtempSync(join(tmpdir(), 'dagent-opaque-')));
  canary = join(bed.workspace, 'canary');
  mkdirSync(canary);
  mkdirSync(join(temp, 'home'));
});

afterEach(async () => {
  await bed.cleanup();
  rmSync(temp, { recursive: true, force: true });
});

const payloads = PAYLOADS.opaque;

describe('the command checker', () => {
  it.each(payloads)('marks %j as opaque: what it runs is not in its text', (payload) => {
    const verdict = checkCommand(payload.replaceAll('CANARY', '/tmp/x/canary'), { workspace: '/tmp/x', home: '/tmp/x-home' });
    expect(verdict.class).not.toBe('safe');
    expect(verdict.opaque?.length ?? 0).toBeGreaterThan(0);
  });

  it.each(['rm -rf build', 'npm test', 'bash -c "npm test && npm run lint"', 'git status'])('does not mark %j as opaque', (command) => {
    expect(checkCommand(command, { workspace: '/tmp/x', home: '/tmp/x-home' }).opaque).toBeUndefined();
  });
});

describe('run_command without a sandbox', () => {
  it.each(payloads)('refuses %j under every policy, and the canary stays', async (payload) => {
    const command = payload.replaceAll('CANARY', canary);
    for (const approval of ['auto', 'suggest', 'never'] as const) {
      const runtime = createToolRuntime({ approval, runCommand: { confinement: { kind: 'disabled' }, env: { HOME: join(temp, 'home'), PATH: process.env.PATH }, home: join(temp, 'home') } });

      const result = await bed.call(runtime, 'run_command', { command });

      expect(result.meta.outcome, approval).toBe('refused');
      expect(result.content).toMatch(/the sandbox is off \(--no-sandbox or sandbox\.enabled: false\), so nothing can vouch for what it runs\. Next: write the command out/);
    }
    expect(existsSync(canary)).toBe(true);
  });
});

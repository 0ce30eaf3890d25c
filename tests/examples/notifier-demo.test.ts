import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../helpers/crash-process.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * `dagent demo` end to end as CI runs it: no terminal, so progress lines instead of the dashboard.
 * The run must show the seed's story: B and C in parallel after A, D compacting and reporting the
 * missed E at 60 % progress, E appended and wired in, and the example's own tests green.
 */
const run = promisify(execFile);

let workspace: { dir: string; cleanup: () => void };
let output: string;
let code: number;

beforeAll(async () => {
  workspace = tempDir('dagent-notifier-');
  const dir = join(workspace.dir, 'demo');
  try {
    // From a folder outside the repository, as a user runs it; DAGENT_BIN names an installed copy (CI: the packed tarball).
    const result = await run(process.execPath, [DAGENT_BIN, 'demo', '--workspace', dir], { cwd: workspace.dir, timeout: 170_000, env: { ...process.env, NO_COLOR: '1' } });
    output = result.stdout;
    code = 0;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
    code = failed.code ?? 1;
  }
}, 180_000);

afterAll(() => workspace?.cleanup());

describe('npm run demo without a terminal', () => {
  it('exits 0 with the example\'s own tests green', () => {
    expect(code, output).toBe(0);
    expect(output).toMatch(/the example's own tests \(npm test in .*\): passed · 7 passed, 0 failed/);
    expect(output).toMatch(/run r-[0-9a-f]+ succeeded · plan v2 · 6\/6 nodes succeeded · 1 replans/);
  });

  it('plans A first, then B and C in parallel, D after B, and misses E', () => {
    expect(output).toMatch(/stage 2 +edit-email .*┐ parallel\n +edit-sms .*┘/);
    expect(output).toContain('lint: src/webhook-channel.ts:8 uses Channel.send (src/channel.ts#Channel.send, changed by edit-channel — inferred from its instructions; declare `changes:` to make it exact) but no node writes it');
  });

  it('lints only what the plan leaves out: the webhook and its test, as inferred warnings; not Message and Receipt, which edit-channel keeps, nor the other channels\' send()', () => {
    const lint = output.split('\n').filter((line) => line.startsWith('lint'));
    expect(lint.map((line) => line.slice(0, line.indexOf(' ('))), output).toEqual(['lint: src/webhook-channel.ts:8 uses Channel.send', 'lint: test/webhook-channel.test.ts:6 uses Channel.send']);
    expect(lint.every((line) => line.includes('inferred from its instructions'))).toBe(true);
  });

  it('compacts edit-digest, which then reports the missed webhook at 60 % progress; E is appended and the tests wait for it', () => {
    expect(output).toMatch(/⇣ edit-digest compaction committed \S+ → \S+ tokens/);
    expect(output).toContain('! edit-digest reported missed work: Rename send() to deliver() in WebhookChannel');
    expect(output).toContain('⟳ replan (append) after missed-work · progress 60%');
    expect(output).toContain('⟳ replan amended → plan v2 · +edit-webhook · edges +edit-webhook→test +edit-channel→edit-webhook');
    expect(output.indexOf('✓ edit-webhook')).toBeLessThan(output.indexOf('▶ test started'));
  });

  it('leaves the run and the renamed repository to explore', () => {
    const dir = join(workspace.dir, 'demo');
    expect(readFileSync(join(dir, 'src', 'webhook-channel.ts'), 'utf8')).toContain('deliver(message: Message): Receipt {');
    expect(readFileSync(join(dir, 'src', 'channel.ts'), 'utf8')).not.toContain('send(');
    expect(output).toContain(`npx dagent -w ${dir} dashboard r-`);
  });
});

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookInput, HookRecord, HookSettings } from '../../../engine/index.js';
import { createHookRunner } from '../../../tools/index.js';

let workspace: string;
beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'dagent-hook-runner-'));
});
afterEach(() => rmSync(workspace, { recursive: true, force: true }));

/** Hooks run unconfined here (the sandbox has its own tests; the binary's tests run hooks in it). */
async function run(hooks: HookSettings, input: Partial<HookInput> & Pick<HookInput, 'event'>) {
  const records: HookRecord[] = [];
  const runner = createHookRunner({ hooks, confinement: () => ({ kind: 'disabled' }), env: { PATH: process.env.PATH } });
  const verdict = await runner.run({ runId: 'r-1', nodeId: 'n', workspace, ...input }, async (ran) => void records.push(ran), new AbortController().signal);
  return { verdict, records };
}

describe('the hook runner', () => {
  it('gives the hook the event as JSON on stdin, in the workspace, and records what it printed', async () => {
    const { verdict, records } = await run({ PreToolUse: [{ matcher: 'run_command', command: 'cat > seen.json; pwd' }] }, { event: 'PreToolUse', tool: 'run_command', toolCallId: 'c1', args: { command: 'ls' } });
    expect(verdict).toEqual({ context: [] });
    expect(JSON.parse(readFileSync(join(workspace, 'seen.json'), 'utf8'))).toEqual({ event: 'PreToolUse', runId: 'r-1', nodeId: 'n', workspace, tool: 'run_command', toolCallId: 'c1', args: { command: 'ls' } });
    expect(records).toEqual([expect.objectContaining({ event: 'PreToolUse', matcher: 'run_command', outcome: 'ok', exitCode: 0, stdout: `${workspace}\n`, effect: 'none', sandbox: 'none' })]);
  });

  it('exit 2 blocks with its stderr and stops the hooks after it; other exits are errors that do not', async () => {
    const hooks: HookSettings = { PreToolUse: [{ command: 'exit 1' }, { command: 'echo no >&2; exit 2' }, { command: 'touch after' }] };
    const { verdict, records } = await run(hooks, { event: 'PreToolUse', tool: 'write_file' });
    expect(verdict.blocked).toEqual({ reason: 'no', command: 'echo no >&2; exit 2' });
    expect(records.map((ran) => [ran.outcome, ran.effect])).toEqual([['error', 'none'], ['blocked', 'blocked']]);
  });

  it('only hooks whose matcher takes the tool run', async () => {
    const { records } = await run({ PostToolUse: [{ matcher: 'edit_file', command: 'echo edit' }, { matcher: 'read_file|grep', command: 'echo read' }] }, { event: 'PostToolUse', tool: 'grep' });
    expect(records.map((ran) => ran.stdout)).toEqual(['read\n']);
  });

  it('PostToolUse output is context for the model: stdout of exit 0, stderr of exit 2', async () => {
    const { verdict } = await run({ PostToolUse: [{ command: 'echo formatted' }, { command: 'echo lint: 2 problems >&2; exit 2' }, { command: 'true' }] }, { event: 'PostToolUse', tool: 'edit_file' });
    expect(verdict).toEqual({ context: [{ command: 'echo formatted', text: 'formatted' }, { command: 'echo lint: 2 problems >&2; exit 2', text: 'lint: 2 problems' }] });
  });

  it('a hook past its time is stopped and is an error, not a block', async () => {
    const { verdict, records } = await run({ PreToolUse: [{ command: 'sleep 30; exit 2', timeoutMs: 200 }] }, { event: 'PreToolUse', tool: 'run_command' });
    expect(verdict.blocked).toBeUndefined();
    expect(records[0]).toMatchObject({ outcome: 'timeout', exitCode: null, effect: 'none', error: 'did not finish within 200 ms and was stopped' });
  });

  it('a hook that does not read a large event still ends by its exit code', async () => {
    const { records } = await run({ PostToolUse: [{ command: 'exit 0' }] }, { event: 'PostToolUse', tool: 'read_file', result: { content: 'x'.repeat(2_000_000), isError: false, outcome: 'ok' } });
    expect(records[0]).toMatchObject({ outcome: 'ok', exitCode: 0 });
  });
});

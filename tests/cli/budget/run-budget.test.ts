import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../../helpers/crash-process.js';
import { NOTIFIER_TASK, notifierWorkspace } from '../../helpers/notifier-run.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * The demo's run under a budget, through the binary: the user's config caps it at $0.08 (the
 * whole run costs about $0.13 at the prices set here), the repository's own config tries to lift
 * that to $5 and is told no. The run pauses with its spend under the cap, says how to go on, and
 * `resume --max-cost 1` finishes it.
 */
const exec = promisify(execFile);
const CAP_USD = 0.08;

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let script: string;
let env: NodeJS.ProcessEnv;
let runId: string;
let paused: Outcome;
let pausedStatus: { run: { status: string }; totals: { costUsd: number }; budget?: { maxCostUsd: number; spentUsd: number } };
let pausedText: string;
let resumed: Outcome;
let resumedStatus: { run: { status: string }; totals: { costUsd: number }; budget?: { maxCostUsd: number; spentUsd: number } };

async function dagent(...args: string[]): Promise<Outcome> {
  try {
    const result = await exec(process.execPath, [DAGENT_BIN, '-w', workspace, '--model', `scripted:${script}`, '--approval', 'auto', ...args], { cwd: temp.dir, env, timeout: 240_000 });
    return { code: 0, stdout: result.stdout, stderr: result.stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

beforeAll(async () => {
  temp = tempDir('dagent-budget-');
  ({ workspace, script } = notifierWorkspace(temp.dir));
  const configHome = join(temp.dir, 'config');
  mkdirSync(join(configHome, 'dagent'), { recursive: true });
  // Priced like a mid-range hosted model, so the scripted run costs something.
  writeFileSync(join(configHome, 'dagent', 'config.json'), JSON.stringify({ prices: { scripted: { inputCacheMiss: 3, inputCacheHit: 0.3, output: 15 } }, budget: { maxCostUsd: CAP_USD } }));
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ budget: { maxCostUsd: 5 } }));
  env = { ...process.env, NO_COLOR: '1', HOME: join(temp.dir, 'home'), XDG_CONFIG_HOME: configHome };

  const planned = await dagent('--json', 'plan', NOTIFIER_TASK);
  expect(planned.code, planned.stderr).toBe(0);
  runId = (JSON.parse(planned.stdout) as { runId: string }).runId;
  expect((await dagent('approve', runId)).code).toBe(0);
  paused = await dagent('run', runId, '--no-dashboard');
  pausedStatus = JSON.parse((await dagent('--json', 'status', runId)).stdout) as typeof pausedStatus;
  pausedText = (await dagent('status', runId)).stdout;
  resumed = await dagent('resume', runId, '--max-cost', '1', '--no-dashboard');
  resumedStatus = JSON.parse((await dagent('--json', 'status', runId)).stdout) as typeof resumedStatus;
}, 900_000);

afterAll(() => temp?.cleanup());

describe('a run with a budget below what it needs', () => {
  it("ignores the repository's attempt to raise the user's budget, and says so", () => {
    expect(paused.stderr).toContain("would raise your budget (budget.maxCostUsd: 5 → 0.08); a repository may only lower a budget, so yours is kept");
  });

  it('pauses with its spend at most the cap, and says in one line what it spent, of what, and how to go on', () => {
    expect(paused.code, paused.stdout + paused.stderr).toBe(0);
    const line = new RegExp(`run ${runId} paused: the run's budget is reached: spent \\$(0\\.0\\d{3}) of \\$0\\.0800; (?:with calls still running \\(about \\$0\\.\\d{4}\\), )?the next model call \\(about \\$(0\\.\\d{4})\\) would cross it; resume with a higher cap: dagent resume ${runId} --max-cost (\\S+)\\n`).exec(paused.stdout);
    expect(line, paused.stdout).not.toBeNull();
    // The cap suggested has room for what was spent and the refused call at least.
    const [spent, estimate, suggested] = line!.slice(1).map(Number) as [number, number, number];
    expect(suggested).toBeGreaterThan(spent + estimate);
    expect(pausedStatus.run.status).toBe('paused');
    expect(pausedStatus.totals.costUsd).toBeGreaterThan(0);
    expect(pausedStatus.totals.costUsd).toBeLessThanOrEqual(CAP_USD);
    expect(pausedStatus.budget).toEqual({ maxCostUsd: CAP_USD, spentUsd: pausedStatus.totals.costUsd, spentTokens: expect.any(Number) as number });
  });

  it('shows the spend against the budget in `status`', () => {
    expect(pausedText).toMatch(/^budget: \$0\.0\d{3} of \$0\.0800 \(\d+%\)$/m);
    expect(pausedText).toContain(`paused: the run's budget is reached`);
    // The same way on as the run's own line: one suggestion, worked out from the same log.
    const suggested = /--max-cost (\S+)\n/.exec(paused.stdout)?.[1];
    expect(pausedText).toContain(`resume with a higher cap: dagent resume ${runId} --max-cost ${suggested}\n`);
  });

  it('gives one spend wherever it shows it: the pause line, the budget line and status --json', () => {
    const pauseLine = /run \S+ paused: the run's budget is reached: spent (\$\d\.\d{4}) of/.exec(paused.stdout)?.[1];
    const statusPauseLine = /^paused: the run's budget is reached: spent (\$\d\.\d{4}) of/m.exec(pausedText)?.[1];
    const budgetLine = /^budget: (\$\d\.\d{4}) of/m.exec(pausedText)?.[1];
    expect(pauseLine).toBe(`$${pausedStatus.totals.costUsd.toFixed(4)}`);
    expect(statusPauseLine).toBe(pauseLine);
    expect(budgetLine).toBe(pauseLine);
  });

  it('finishes when resumed with a higher cap, which the log records', () => {
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`run ${runId} succeeded`));
    expect(resumedStatus.run.status).toBe('succeeded');
    expect(resumedStatus.budget?.maxCostUsd).toBe(1);
    expect(resumedStatus.totals.costUsd).toBeLessThanOrEqual(1);
  });
});

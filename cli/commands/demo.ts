import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvePlan, currentPlan } from '../../engine/index.js';
import { CliContext } from '../cli-context.js';
import { writeLine } from '../cli-io.js';
import { defineCommand } from '../command.js';
import { packageRoot } from '../package-root.js';
import { lintForReview } from '../plan-lint.js';
import { analyzeForReview, printPlan } from '../plan-review.js';
import { planWithModel } from '../planning.js';
import { runApprovedPlan } from '../run-plan.js';

export const DEMO_TASK = 'Rename Invoice.total() to Invoice.grandTotal() everywhere; keep tests green';

export const demoCommand = defineCommand<{ into?: string }>({
  builder: (yargs) => yargs.option('into', { type: 'string', describe: 'folder to copy the demo repository into (default: a new temporary folder)' }),
  async run(context, args) {
    const root = packageRoot();
    const workspace = args.into ?? mkdtempSync(join(tmpdir(), 'dagent-demo-'));
    cpSync(join(root, 'examples', 'billing'), workspace, { recursive: true });
    initGit(workspace);
    const script = join(root, 'examples', 'billing.script.json');
    const demo = new CliContext(context.io, { workspace, model: `scripted:${script}`, approval: 'auto', json: context.json });
    const out = context.io.stdout;
    try {
      if (!context.json) {
        writeLine(out, `demo repository: ${workspace} (a copy of examples/billing, scripted model: examples/billing.script.json)`);
        writeLine(out, `task: ${DEMO_TASK}\n`);
      }
      const runId = await planWithModel(demo, DEMO_TASK);
      const { db } = await demo.store();
      const stored = await currentPlan(db, runId);
      if (!context.json) {
        printPlan(demo, stored, await analyzeForReview(demo, stored.plan, await lintForReview(demo, stored.plan)), 'text', 'plan');
        writeLine(out, '\nthe demo approves the plan itself; in real use you review it first (dagent show / edit / approve)\n');
      }
      await approvePlan(db, runId);
      const code = await runApprovedPlan(demo, runId, {});
      if (!context.json) {
        const dagent = `npx dagent -w ${workspace}`;
        writeLine(out, `\nlook around (from this repository):\n  ${dagent} status ${runId}\n  ${dagent} diff ${runId}\n  ${dagent} log ${runId} --node edit-reminder\n  ${dagent} inspect ${runId} --node edit-pdf\n  ${dagent} revert ${runId} --node edit-api --dry-run`);
      }
      return code;
    } finally {
      await demo.close();
    }
  },
});

/** A git repository, so snapshots use git trees and `git diff` shows the change too. */
function initGit(workspace: string): void {
  try {
    const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=dagent demo', '-c', 'user.email=demo@dagent.invalid', ...args], { cwd: workspace, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'billing: before the refactor');
  } catch {
    // without git the snapshots scan each node's write set instead
  }
}

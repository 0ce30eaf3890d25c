import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DagentError, approvePlan, controlledGitEnvironment, currentPlan } from '../../engine/index.js';
import { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { dagentCommand } from '../context/dagent-command.js';
import { packageRoot } from '../context/package-root.js';
import { lintForReview } from '../plans/plan-lint.js';
import { analyzeForReview, printPlan } from '../plans/plan-review.js';
import { planWithModel } from '../plans/planning.js';
import { runApprovedPlan } from '../running/run-plan.js';

export const DEMO_TASK = 'Rename Channel.send() to Channel.deliver() everywhere; keep tests green';
const DEMO_REPOSITORY = 'notifier';
const DEMO_SCRIPT = 'notifier.script.json';

interface DemoArgs {
  into?: string;
  dashboard?: boolean;
}

export const demoCommand = defineCommand<DemoArgs>({
  examples: [
    ['$0 demo', 'plan, review and run the demo refactor offline'],
  ],
  builder: (yargs) =>
    yargs
      .option('into', { type: 'string', describe: 'folder to copy the demo repository into (same as --workspace; default: a new temporary folder)' })
      .option('dashboard', { type: 'boolean', describe: 'show the live dashboard (the default on a terminal); --no-dashboard prints progress lines' }),
  async run(context, args) {
    const root = packageRoot();
    const workspace = demoWorkspace(context, args);
    cpSync(join(root, 'examples', DEMO_REPOSITORY), workspace, { recursive: true });
    linkTypeScript(workspace);
    initGit(workspace);
    isolateNodes(workspace);
    const script = join(root, 'examples', DEMO_SCRIPT);
    const demo = new CliContext(context.io, { workspace, model: `scripted:${script}`, approval: 'auto', json: context.json });
    const out = context.io.stdout;
    try {
      if (!context.json) {
        writeLine(out, `demo repository: ${workspace} (a copy of examples/${DEMO_REPOSITORY}, scripted model: examples/${DEMO_SCRIPT})`);
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
      const code = await runApprovedPlan(demo, runId, args.dashboard === undefined ? {} : { dashboard: args.dashboard });
      const tests = runExampleTests(workspace);
      if (!context.json) {
        writeLine(out, `\nthe example's own tests (npm test in ${workspace}): ${tests.passed ? 'passed' : 'FAILED'}${tests.summary === '' ? '' : ` · ${tests.summary}`}`);
        const branch = runBranchLog(workspace, runId);
        if (branch !== '') writeLine(out, `\neach node ran in its own git worktree; its change is one commit on the run branch (git log --oneline dagent/${runId}):\n${branch}`);
        const command = dagentCommand(process.argv[1], context.io.env);
        const dagent = `${command} -w ${workspace}`;
        writeLine(
          out,
          `\nlook around${command === 'npx dagent' ? ' (from this repository)' : ''}:\n  ${dagent} dashboard ${runId}\n  ${dagent} status ${runId}\n  ${dagent} diff ${runId}\n  ${dagent} log ${runId} --node edit-digest\n  ${dagent} inspect ${runId} --node edit-webhook\n  ${dagent} revert ${runId} --node edit-sms --dry-run`,
        );
      } else {
        writeLine(out, JSON.stringify({ demo: { runId, workspace, testsPassed: tests.passed } }));
      }
      return code === 0 && tests.passed ? 0 : 1;
    } finally {
      await demo.close();
    }
  },
});

/** `--workspace DIR` (or `--into DIR`): a new or empty folder; otherwise a new temporary one. */
function demoWorkspace(context: CliContext, args: DemoArgs & { workspace?: string }): string {
  const given = args.into ?? args.workspace;
  if (given === undefined) return mkdtempSync(join(tmpdir(), 'dagent-demo-'));
  const folder = resolve(context.io.cwd, given);
  if (existsSync(folder) && readdirSync(folder).some((name) => name !== '.dagent')) {
    throw new DagentError(`${folder} is not empty: the demo copies its repository into a new or empty folder`);
  }
  mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * The example compiles with `tsc`: the copy gets dagent's own TypeScript in its node_modules (a
 * link, nothing is downloaded), so `npm test` works offline.
 */
function linkTypeScript(workspace: string): void {
  const typescript = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
  mkdirSync(join(workspace, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(typescript, join(workspace, 'node_modules', 'typescript'), 'dir');
  symlinkSync(join('..', 'typescript', 'bin', 'tsc'), join(workspace, 'node_modules', '.bin', 'tsc'));
}

/** The example's tests on the result: the demo succeeds only if they pass. */
function runExampleTests(workspace: string): { passed: boolean; summary: string } {
  const result = spawnSync('npm', ['test', '--silent'], { cwd: workspace, encoding: 'utf8', timeout: 120_000 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  const summary = output.match(/\d+ passed, \d+ failed/)?.[0] ?? output.trim().split('\n').slice(-2).join(' ');
  return { passed: result.status === 0, summary };
}

/** A git repository, so snapshots use git trees and `git diff` shows the change too. */
function initGit(workspace: string): void {
  try {
    const env = controlledGitEnvironment({ config: [['user.name', 'dagent demo'], ['user.email', 'demo@dagent.invalid'], ['commit.gpgsign', 'false']] });
    const git = (...args: string[]): void => void execFileSync('git', args, { cwd: workspace, env, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-q', '-m', 'notifier: before the rename');
  } catch {
    // without git the snapshots scan each node's write set instead
  }
}

/** The demo runs each node in its own worktree (`isolation: worktree`, a key a repository's config may set). */
function isolateNodes(workspace: string): void {
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  writeFileSync(join(workspace, '.dagent', '.gitignore'), '# dagent state: the run database and file snapshots\n*\n');
  writeFileSync(join(workspace, '.dagent', 'config.json'), `${JSON.stringify({ isolation: 'worktree' }, null, 2)}\n`);
}

/** The run branch's commits since the demo's own first commit, newest first; empty without git. */
function runBranchLog(workspace: string, runId: string): string {
  const result = spawnSync('git', ['log', '--oneline', '--no-decorate', `HEAD..dagent/${runId}`], { cwd: workspace, env: controlledGitEnvironment(), encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trimEnd() : '';
}

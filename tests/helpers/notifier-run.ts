import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DAGENT_BIN } from './crash-process.js';

const run = promisify(execFile);
const EXAMPLES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'examples');
export const NOTIFIER_TASK = 'Rename Channel.send() to Channel.deliver() everywhere; keep tests green';

/** The demo's script without its pauses: the same run (replan and compaction included) in a few seconds. */
function fastScript(into: string): string {
  const script = JSON.parse(readFileSync(join(EXAMPLES, 'notifier.script.json'), 'utf8')) as unknown;
  const path = join(into, 'notifier.fast.script.json');
  writeFileSync(path, JSON.stringify(script, (key, value: unknown) => (key === 'latencyMs' || key === 'streamMs' ? undefined : value)));
  return path;
}

/**
 * The demo's run through the binary, as `dagent demo` makes it (the notifier repository with
 * TypeScript linked and a first commit, the scripted model), but with `plan --yes` in `dir/repo`.
 * Returns the workspace, the run id and the binary's output.
 */
export async function notifierRun(dir: string, env: NodeJS.ProcessEnv = {}): Promise<{ workspace: string; runId: string; stdout: string; stderr: string }> {
  const { workspace, script } = notifierWorkspace(dir);
  const childEnv = { ...process.env, NO_COLOR: '1', ...env };
  const result = await run(process.execPath, [DAGENT_BIN, '-w', workspace, '--model', `scripted:${script}`, '--approval', 'auto', 'plan', NOTIFIER_TASK, '--yes'], { cwd: dir, env: childEnv, timeout: 120_000 });
  const status = await run(process.execPath, [DAGENT_BIN, '-w', workspace, '--json', 'status'], { cwd: dir, env: childEnv });
  const runId = (JSON.parse(status.stdout) as { runs: { id: string }[] }).runs[0]!.id;
  return { workspace, runId, stdout: result.stdout, stderr: result.stderr };
}

/** The demo's repository in `dir/repo` (TypeScript linked, a first commit) and its script without pauses. */
export function notifierWorkspace(dir: string): { workspace: string; script: string } {
  const workspace = join(dir, 'repo');
  cpSync(join(EXAMPLES, 'notifier'), workspace, { recursive: true });
  const typescript = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
  mkdirSync(join(workspace, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(typescript, join(workspace, 'node_modules', 'typescript'), 'dir');
  symlinkSync(join('..', 'typescript', 'bin', 'tsc'), join(workspace, 'node_modules', '.bin', 'tsc'));
  const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: workspace, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'before');
  return { workspace, script: fastScript(dir) };
}

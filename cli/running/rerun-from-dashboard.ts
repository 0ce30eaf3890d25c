import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { getRun, prepareRerun } from '../../engine/index.js';
import type { CliContext } from '../context/cli-context.js';
import { packageRoot } from '../context/package-root.js';

/**
 * The dashboard's `R`: `dagent rerun RUN --from NODE` for the selected node. The rerun is prepared
 * here (a new plan version, the nodes' changes reverted), then a `dagent resume` of its own runs it
 * in the background, its approvals answered from the dashboard; the screen follows its events.
 */
export async function rerunFromDashboard(context: CliContext, runId: string, nodeId: string): Promise<string> {
  const { db } = await context.store();
  const run = await getRun(db, runId);
  const prepared = await prepareRerun(db, run.id, { from: nodeId, workspace: context.workspaceGiven ? context.workspace : run.workspace });
  const child = spawn(
    process.execPath,
    [join(packageRoot(), 'bin', 'dagent.js'), '-w', context.workspace, '--db', context.dbUrl, 'resume', run.id, '--no-dashboard', '--approve-from-dashboard'],
    { detached: true, stdio: 'ignore', env: context.io.env, cwd: context.workspace },
  );
  child.unref();
  return `plan v${prepared.version}: ${prepared.nodes.join(', ')} run again (pid ${child.pid ?? '?'}); the others keep their results`;
}

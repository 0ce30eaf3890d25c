import type { WorkspaceLanguageService } from '../../planners/index.js';
import type { CliContext } from '../context/cli-context.js';
import { loadPlanners } from './load-planners.js';
import { workspaceRepoMap } from './workspace-repo-map.js';

/** One language service per CLI invocation (so per run) and tsconfig: created on first use, disposed when the invocation ends. */
const SERVICES = new WeakMap<CliContext, Map<string, Promise<WorkspaceLanguageService>>>();

/**
 * The workspace's TypeScript language service, fed the context's scan as its import graph: plan lint,
 * `scan` and the symbol tools of a run share it.
 */
export function workspaceLanguageService(context: CliContext, tsconfig?: string): Promise<WorkspaceLanguageService> {
  const services = SERVICES.get(context) ?? new Map<string, Promise<WorkspaceLanguageService>>();
  SERVICES.set(context, services);
  let service = services.get(tsconfig ?? '');
  if (service === undefined) {
    service = loadPlanners().then((planners) =>
      planners.createLanguageService({ workspace: context.workspace, repoMap: () => workspaceRepoMap(context, tsconfig), ...(tsconfig === undefined ? {} : { tsconfig }) }),
    );
    services.set(tsconfig ?? '', service);
    const created = service;
    context.onClose(async () => (await created).dispose());
  }
  return service;
}

import type { WorkspaceLanguageService } from '../planners/index.js';
import type { CliContext } from './cli-context.js';
import { loadPlanners, workspaceRepoMap } from './plan-lint.js';

/** One language service per CLI invocation (so per run): created on first use, disposed when the invocation ends. */
const SERVICES = new WeakMap<CliContext, Promise<WorkspaceLanguageService>>();

/** The workspace's TypeScript language service, sharing the invocation's repository scan. */
export function workspaceLanguageService(context: CliContext): Promise<WorkspaceLanguageService> {
  let service = SERVICES.get(context);
  if (service === undefined) {
    service = loadPlanners().then((planners) => planners.createLanguageService({ workspace: context.workspace, repoMap: () => workspaceRepoMap(context) }));
    SERVICES.set(context, service);
    const created = service;
    context.onClose(async () => (await created).dispose());
  }
  return service;
}

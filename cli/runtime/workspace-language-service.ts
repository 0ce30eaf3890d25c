import { resolve } from 'node:path';
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

/** Most language services over node worktrees kept at once; the least recently asked is disposed for a new one. */
export const MAX_NODE_LANGUAGE_SERVICES = 4;

const NODE_SERVICES = new WeakMap<CliContext, Map<string, Promise<WorkspaceLanguageService>>>();

/**
 * The language service the symbol tools of a node use: over `root`, the node's own workspace (its
 * worktree under `isolation: worktree`, so a node finds its own edits), or the working copy's
 * shared service when that is where the node runs. A worktree's service takes the working copy's
 * scan as its import graph (the worktrees are checkouts of the same files) and is started only when
 * a node asks; at most `MAX_NODE_LANGUAGE_SERVICES` are kept, the least recently asked disposed
 * (asked again, it starts afresh).
 */
export function nodeLanguageService(context: CliContext, root: string): Promise<WorkspaceLanguageService> {
  if (resolve(root) === resolve(context.workspace)) return workspaceLanguageService(context);
  const services = NODE_SERVICES.get(context) ?? new Map<string, Promise<WorkspaceLanguageService>>();
  if (!NODE_SERVICES.has(context)) {
    NODE_SERVICES.set(context, services);
    context.onClose(async () => {
      await Promise.all([...services.values()].map(async (service) => (await service).dispose()));
      services.clear();
    });
  }
  let service = services.get(root);
  if (service !== undefined) {
    // The most recently asked goes last.
    services.delete(root);
    services.set(root, service);
    return service;
  }
  service = loadPlanners().then((planners) => planners.createLanguageService({ workspace: root, repoMap: () => workspaceRepoMap(context), cache: false }));
  services.set(root, service);
  for (const [oldest, old] of services) {
    if (services.size <= MAX_NODE_LANGUAGE_SERVICES) break;
    services.delete(oldest);
    void old.then((dropped) => dropped.dispose()).catch(() => undefined);
  }
  return service;
}

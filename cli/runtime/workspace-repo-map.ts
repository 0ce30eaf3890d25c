import type { RepoMap } from '../../planners/index.js';
import type { CliContext } from '../context/cli-context.js';
import { loadPlanners } from './load-planners.js';

/** One scan per CLI invocation (and tsconfig): `plan`, `show` and `scan` in the same context share it. */
const SCANS = new WeakMap<CliContext, Map<string, Promise<RepoMap>>>();

function scansOf(context: CliContext): Map<string, Promise<RepoMap>> {
  const scans = SCANS.get(context) ?? new Map<string, Promise<RepoMap>>();
  SCANS.set(context, scans);
  return scans;
}

/** The workspace's repository map, scanned once per context (through the cache in .dagent/); rejects when the scan fails. */
export function workspaceRepoMap(context: CliContext, tsconfig?: string): Promise<RepoMap> {
  const scans = scansOf(context);
  let scan = scans.get(tsconfig ?? '');
  if (scan === undefined) {
    scan = loadPlanners().then((planners) => planners.scanRepository(context.workspace, { signal: context.io.interrupt, ...(tsconfig === undefined ? {} : { tsconfig }) }));
    scans.set(tsconfig ?? '', scan);
  }
  return scan;
}

/** A fresh scan becomes the context's (default tsconfig) scan: the language service's next query follows the new graph. */
export function replaceWorkspaceRepoMap(context: CliContext, map: RepoMap): void {
  scansOf(context).set('', Promise.resolve(map));
}

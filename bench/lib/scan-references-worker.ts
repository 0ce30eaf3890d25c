import { parentPort, workerData } from 'node:worker_threads';
import { createLanguageService, findSymbolReferences, scanRepository } from '../../planners/index.js';

/**
 * One share of the scan benchmark's comparison, in a worker thread: the workspace's (cached)
 * scan, a language service of its own, and `findSymbolReferences` for each symbol it is handed,
 * exactly as `scan --importers` answers. Posts back each symbol's referencing files.
 */
export interface ScanReferencesJob {
  readonly root: string;
  readonly symbols: readonly string[];
}

const job = workerData as ScanReferencesJob;
const map = await scanRepository(job.root);
const service = createLanguageService({ workspace: job.root, repoMap: async () => map });
const answers: Record<string, string[]> = {};
for (const symbol of job.symbols) answers[symbol] = (await findSymbolReferences(map, symbol, () => service)).map((entry) => entry.file);
service.dispose();
parentPort?.postMessage(answers);

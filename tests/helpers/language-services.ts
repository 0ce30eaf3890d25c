import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * Ends the warm language services (`dagent language-service --serve`) that serve a workspace under
 * the temporary folder: the tests' own. Each would exit by itself once its workspace is deleted or
 * after its idle time; this makes sure none outlives the test run. Linux only (/proc); elsewhere nothing.
 */
export function stopTemporaryLanguageServices(): number {
  let stopped = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of entries) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const flag = argv.indexOf('--workspace');
    const workspace = flag < 0 ? undefined : argv[flag + 1];
    if (!argv.includes('language-service') || !argv.includes('--serve') || workspace === undefined || !workspace.startsWith(tmpdir())) continue;
    try {
      process.kill(Number(pid), 'SIGTERM');
      stopped += 1;
    } catch {
      // Gone already.
    }
  }
  return stopped;
}

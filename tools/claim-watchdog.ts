import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { ClaimFence } from '../engine/index.js';

/** The shell the watchdog needs (`read -t` with fractions of a second). */
const WATCHDOG_SHELL = '/bin/bash';

/**
 * Runs first in the command's process group: a background loop reads the claim's remaining time
 * from the worker (a line per renewal, on the pipe that was stdin) and kills the whole group with
 * SIGKILL when no line comes in time (the worker is paused, cut off from the store, or dead: then
 * the pipe ends). `end` from the worker lets the command be. Then the command replaces the shell.
 */
const WATCHDOG_SCRIPT = [
  'watch() {',
  '  while IFS= read -r -t "$1" line; do',
  '    [ "$line" = end ] && exit 0',
  '    set -- "$line"',
  '  done',
  '  kill -KILL 0',
  '}',
  'exec 3<&0 </dev/null',
  'watch "$1" <&3 >/dev/null 2>&1 &',
  'exec 3<&-',
  'shift',
  'exec "$@"',
].join('\n');

export interface SpawnedCommand {
  readonly file: string;
  readonly args: readonly string[];
}

/** Whether commands of a claimed node can be watched on this machine (bash is there). */
export function canWatchClaims(): boolean {
  return existsSync(WATCHDOG_SHELL);
}

/**
 * `command` wrapped so that it dies, with every process of its group, before `claim` expires
 * unless the worker keeps renewing it (see `feedClaimWatchdog`, which must get the stdin pipe).
 */
export function underClaimWatchdog(command: SpawnedCommand, claim: ClaimFence): SpawnedCommand {
  return { file: WATCHDOG_SHELL, args: ['-c', WATCHDOG_SCRIPT, 'dagent-claim-watchdog', seconds(claim.remainingMs()), command.file, ...command.args] };
}

/** Tells the watchdog the claim's new remaining time at each renewal; the returned function ends the watch (the command may finish). */
export function feedClaimWatchdog(stdin: Writable, claim: ClaimFence): () => void {
  // The watchdog is gone once the group is: a late renewal's line then has no reader.
  stdin.on('error', () => undefined);
  const unsubscribe = claim.onRenew(() => {
    if (stdin.writable) stdin.write(`${seconds(claim.remainingMs())}\n`);
  });
  return () => {
    unsubscribe();
    if (stdin.writable) stdin.end('end\n');
  };
}

/** Seconds for `read -t` (never 0, which would only poll). */
function seconds(ms: number): string {
  return (Math.max(1, Math.floor(ms)) / 1000).toFixed(3);
}

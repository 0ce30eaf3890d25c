import { NO_TERMINAL_DENIAL } from '../engine/index.js';
import type { Tool } from './define-tool.js';

/**
 * What a human does so that a call denied for want of a terminal goes through: the approval
 * policy flag, answering from the dashboard, or (for a command) declaring it in the plan.
 */
export function withoutTerminalNextStep(tool: Tool, summary: string, runId: string): string {
  const ways = ['--approval auto (the sandbox still confines commands)', `\`dagent resume ${runId} --approve-from-dashboard\` and answer in \`dagent dashboard ${runId}\``];
  if (tool.name === 'run_command') ways.push('declare it in the plan as a command node (kind: command, command: …)');
  return `${summary} ${NO_TERMINAL_DENIAL}; to allow it: ${ways.join(', or ')}`;
}

/**
 * The call as a denial names it: under `suggest`, where a call the checker finds safe runs unasked,
 * with why this one was to be asked (`run_command cat notes (cat reads notes, outside the workspace …)`).
 */
export function checkedSummary(summary: string, policy: string, reason: string | undefined): string {
  if (policy !== 'suggest' || reason === undefined) return summary;
  // `touch made.txt: it writes a file` after `run_command touch made.txt`: the call is named once.
  const call = `${summary.slice(summary.indexOf(' ') + 1)}: `;
  return `${summary} (${(reason.startsWith(call) ? reason.slice(call.length) : reason).replace(/[.]+$/, '')})`;
}

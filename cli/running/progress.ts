import { RUN_VIEW_EVENT_TYPES, emptyRunView, reduceRunView, planChangeSummary, visibleText, type RunView, type SessionEvent } from '../../engine/index.js';
import type { CliIo } from '../context/cli-io.js';
import { outputHold } from '../context/output-hold.js';
import { eventJson, formatDuration, formatTokens, formatUsd, overlappedNote } from '../render/index.js';

export interface ProgressPrinter {
  (events: readonly SessionEvent[]): void;
  /** The run as the lines have followed it: the same fold `status` and the dashboard read. */
  readonly view: () => RunView;
  /** Writes the lines still waiting (the run ended, or the feed stops). */
  readonly flush: () => void;
}

/** Lines wait at most this long, so that a burst of events (a wide stage starting or ending) goes out in one write. */
export const PROGRESS_LINES_WAIT_MS = 50;

/** The events the run's fold reads (`RUN_VIEW_EVENT_TYPES`); the others only make lines, or none. */
const FOLDED_TYPES: ReadonlySet<string> = new Set(RUN_VIEW_EVENT_TYPES);

/**
 * Plain progress lines for a run without a dashboard (no TTY, CI, `--no-dashboard`): one line
 * per node state change, replan and approval, with times, tokens and cost read from the run's
 * one fold (`reduceRunView`). With `--json` every event goes out as a JSON line, the same shape
 * as `dagent log --json`. `initial` is the run folded so far, when the lines start mid-run.
 *
 * Lines are written together, at most `PROGRESS_LINES_WAIT_MS` after the first of them: each
 * write to a pipe is a system call that wakes its reader, and a wide stage makes a line per node.
 * The events are folded and their lines made then too, not as they arrive: a wide stage's starts
 * arrive while its nodes prepare their first requests on the same thread, and the fold waits
 * for the time the run then spends waiting on the model. A question for the user
 * (`approval/requested`) goes out at once, with the lines before it.
 */
export function createProgressPrinter(io: CliIo, options: { json: boolean; initial?: RunView; approvalsHere?: boolean }): ProgressPrinter {
  let view = options.initial ?? emptyRunView('');
  // A question on the terminal stays in one piece: lines wait while it is open.
  const hold = outputHold(io);
  let arrived: SessionEvent[] = [];
  let waiting: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** Folds the events that arrived, in order, their lines made as each is folded. */
  const fold = (): void => {
    const events = arrived;
    arrived = [];
    for (const event of events) {
      if (FOLDED_TYPES.has(event.type)) view = reduceRunView(view, event);
      if (options.json) {
        waiting.push(eventJson(event));
        continue;
      }
      const line = progressLine(event, view, options.approvalsHere === true);
      if (line !== undefined) waiting.push(`${event.createdAt.slice(11, 19)}  ${visibleText(line)}`);
    }
  };
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    fold();
    if (waiting.length === 0) return;
    const lines = waiting;
    waiting = [];
    hold.writeLine(io.stdout, lines.join('\n'));
  };
  const print = (events: readonly SessionEvent[]): void => {
    arrived.push(...events);
    if (events.some((event) => event.type === 'approval/requested')) flush();
    else if (arrived.length > 0) timer ??= setTimeout(flush, PROGRESS_LINES_WAIT_MS);
  };
  return Object.assign(print, {
    view: () => {
      fold();
      return view;
    },
    flush,
  });
}

/** The line for one event, read after the event is folded into `view`. */
export function progressLine(event: SessionEvent, view: RunView, approvalsHere = false): string | undefined {
  const node = event.nodeId ?? '';
  switch (event.type) {
    case 'run/started':
      return `run ${event.runId} started (plan v${event.payload.planVersion ?? '?'})`;
    case 'node/started':
      return `▶ ${node} started${event.payload.attempt > 1 ? ` (attempt ${event.payload.attempt})` : ''}`;
    case 'node/succeeded':
      return succeededLine(event, view, node);
    case 'node/failed':
      return `✗ ${node} failed: ${firstLine(event.payload.error)}`;
    case 'node/retried':
      return `↻ ${node} retrying in ${formatDuration(event.payload.delayMs)}: ${firstLine(event.payload.error)}`;
    case 'node/skipped':
      return `- ${node} skipped: ${event.payload.reason}`;
    case 'node/cancelled':
      return `■ ${node} cancelled`;
    case 'model/switched':
      return `⇄ ${node} model ${event.payload.from} gave way to ${event.payload.to} (${event.payload.reason.replace('-', ' ')}: ${firstLine(event.payload.error)})`;
    case 'node/reset':
      return `↺ ${node} runs again (${event.payload.reason})${event.payload.reverted ? ': its change reverted' : ''}`;
    case 'node/reused':
      return `♻ ${node} reused: nothing it depends on changed · ${formatTokens(event.payload.saved.input + event.payload.saved.output)} tokens · ${formatUsd(event.payload.savedCostUsd)} saved`;
    case 'reuse/missed':
      return `↺ ${node} not reused: ${event.payload.reason}`;
    case 'node/snapshotted':
      return event.payload.startsOver === undefined ? undefined : `↺ ${node} starts over: ${event.payload.startsOver}`;
    case 'step/resumed':
      return [`⏵ ${node} resumed after step ${event.payload.fromStep}`, ...resumedParts(event.payload), `${event.payload.modelCalls} model call${event.payload.modelCalls === 1 ? '' : 's'} not repeated`].join(' · ');
    case 'writes/exceeded':
      return `⚠ ${node} changed files outside its declared writes: ${event.payload.paths.join(', ')} (${event.payload.enforced === true ? 'strictWrites: the node fails, its change is not merged' : `recorded: \`dagent diff\` shows them, \`dagent revert --node ${node}\` undoes them`})${overlappedNote(event.payload.overlapped)}`;
    case 'node/conflicted': {
      const where = event.payload.files.map((file) => (file.hunks.length === 0 ? file.path : `${file.path}:${file.hunks.map((hunk) => hunk.line).join(',')}`)).join(', ');
      return `⚡ ${node} conflicts with changes merged before it on ${event.payload.branch}: ${where} (${event.payload.onConflict === 'pause' ? 'the run pauses for you' : 'a replan appends a node to resolve it'})`;
    }
    case 'workspace/discarded':
      return `  ${node}'s workspace changes were not merged: ${event.payload.files.length} file${event.payload.files.length === 1 ? '' : 's'} dropped`;
    case 'node/merged':
      return `⎇ ${node} merged ${event.payload.files.length} file${event.payload.files.length === 1 ? '' : 's'} as ${event.payload.commit.slice(0, 12)} on ${event.payload.branch}${event.payload.keptYours.length === 0 ? '' : ` · kept your edits of ${event.payload.keptYours.join(', ')}`}`;
    case 'work/reported':
      return `! ${node} reported missed work: ${event.payload.title} (${event.payload.files.join(', ')})`;
    case 'replan/started':
      return `⟳ replan (${event.payload.mode}) after ${event.payload.trigger} · progress ${Math.round(event.payload.progress * 100)}%`;
    case 'replan/finished': {
      if (event.payload.outcome !== 'amended') return `⟳ replan ${event.payload.outcome}: ${event.payload.outcome === 'gave-up' ? event.payload.reason : event.payload.error}`;
      const change = view.replans.at(-1)?.change;
      return `⟳ replan amended → plan v${event.payload.version}${change === undefined ? '' : ` · ${planChangeSummary(change)}`}`;
    }
    case 'approval/requested':
      return `? ${node} asks to run ${typeof event.payload.summary === 'string' ? event.payload.summary : event.payload.tool}${approvalsHere ? '' : ` (approve from \`dagent dashboard ${event.runId}\`)`}`;
    case 'approval/granted':
      return `✓ ${node} ${event.payload.tool ?? event.payload.toolCallId}: approved by ${event.payload.by}`;
    case 'plan/amended':
      return `  plan v${event.payload.version}: ${event.payload.reason}`;
    case 'approval/denied':
      return `⊘ ${node} ${event.payload.tool ?? event.payload.toolCallId}: denied (${event.payload.reason ?? event.payload.by})`;
    case 'compaction/end': {
      const before = view.nodes.get(node)?.compactions.find((compaction) => compaction.compactionId === event.payload.compactionId)?.tokensBefore;
      const from = before === undefined ? '' : ` ${formatTokens(before)}`;
      return `⇣ ${node} compaction ${event.payload.outcome}${event.payload.tokensAfter === undefined ? '' : `${from} → ${formatTokens(event.payload.tokensAfter)} tokens`}`;
    }
    case 'run/succeeded':
      return `run succeeded`;
    case 'run/failed':
      return `run failed: ${firstLine(event.payload.error)}`;
    case 'run/cancelled':
      return `run cancelled: ${event.payload.reason ?? ''}`;
    case 'run/paused':
      return `run paused: ${event.payload.reason}`;
    case 'hook/ran':
      return hookLine(event, node);
    default:
      return undefined;
  }
}

/** `✓ edit-a 1.2s · 14K tokens · $0.01 · src/a.ts`: how long the node took, what it spent, the files it changed. */
function succeededLine(event: SessionEvent<'node/succeeded'>, view: RunView, node: string): string {
  const folded = view.nodes.get(node);
  const started = folded?.startedAt ?? event.createdAt;
  const took = Date.parse(event.createdAt) - Date.parse(started);
  const tokens = folded === undefined ? 0 : folded.tokens.input + folded.tokens.output;
  const files = event.payload.filesChanged?.length ? ` · ${event.payload.filesChanged.join(', ')}` : '';
  return `✓ ${node} ${formatDuration(took)} · ${formatTokens(tokens)} tokens · ${formatUsd(folded?.costUsd ?? 0)}${files}`;
}

/**
 * A hook that blocked, failed or ran out of time (docs/hooks.md: an error is shown and logged,
 * never blocking); one that ran fine makes no line.
 */
function hookLine(event: SessionEvent<'hook/ran'>, node: string): string | undefined {
  const { payload } = event;
  if (payload.outcome === 'ok') return undefined;
  const where = [node, payload.tool].filter((part) => part !== undefined && part !== '').join(' ');
  const said = firstLine(payload.stderr.trim() || payload.stdout.trim());
  const what = payload.outcome === 'blocked' ? 'blocked' : payload.outcome === 'timeout' ? `timed out after ${formatDuration(payload.durationMs)}` : `failed (exit ${payload.exitCode ?? '?'})`;
  return `⚑ ${payload.event} hook ${what}${where === '' ? '' : ` at ${where}`}: ${payload.command.length > 60 ? `${payload.command.slice(0, 57)}…` : payload.command}${said === '' ? '' : ` · ${said}`}`;
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

/** What a resumed node did with what was in flight: the files it put back, the calls that run again (by tool), those reported interrupted. */
function resumedParts(payload: SessionEvent<'step/resumed'>['payload']): string[] {
  const parts: string[] = [];
  const { restored, interrupted, toolCallIds = [], toolNames } = payload;
  if (restored.length > 0) parts.push(`${restored.length} file${restored.length === 1 ? '' : 's'} put back as after step ${payload.fromStep}`);
  if (payload.rerun === 'model-call') parts.push('the model call in flight runs again');
  const again = toolNames === undefined ? `${toolCallIds.length} tool call${toolCallIds.length === 1 ? '' : 's'}` : toolNames.join(', ');
  if (payload.rerun === 'tool-calls') parts.push(`${again} in flight ${toolCallIds.length === 1 ? 'runs' : 'run'} again`);
  if (interrupted.length > 0) parts.push(`${interrupted.length} interrupted call${interrupted.length === 1 ? '' : 's'} not run again`);
  return parts;
}

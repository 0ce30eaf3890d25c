import blessed from 'blessed';
import { isTerminalRunStatus, type PendingApproval, type SessionEvent } from '../engine/index.js';
import { applyEvents, approvalToAnswer, moveSelection, togglePanel, withNotice, type DashboardState } from './dashboard-state.js';
import { renderScreen } from './render-screen.js';
import { lineCells, type Cell } from './screen-cells.js';

/** What the keys do to the run; the composition root writes them to the run's log. Each resolves to a line of feedback. */
export interface DashboardActions {
  approve(approval: PendingApproval): Promise<string>;
  deny(approval: PendingApproval): Promise<string>;
  cancel(): Promise<string>;
}

export interface DashboardTerminal {
  readonly output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  readonly input: NodeJS.ReadableStream;
}

export interface OpenDashboardOptions {
  readonly terminal: DashboardTerminal;
  readonly state: DashboardState;
  readonly actions: DashboardActions;
  /** False under NO_COLOR (and on terminals without colour). */
  readonly color: boolean;
  readonly now?: () => number;
  /** Redraws are paced: at most one per this many milliseconds (changes in between are drawn together). */
  readonly redrawMs?: number;
  /** Called after each redraw with the last seq on screen (the benchmark measures append → screen with it). */
  readonly onRender?: (lastSeq: number) => void;
}

export interface Dashboard {
  /** New events of the run (from its live log or a follower). */
  push(events: readonly SessionEvent[]): void;
  /** The process running the run is gone (or back). */
  setOrphan(orphan: { pid: number } | null): void;
  state(): DashboardState;
  /** Resolves when the user quits the screen (`q`); the run is never stopped by it. */
  readonly detached: Promise<void>;
  /** Takes the screen down and gives the terminal back. */
  close(): void;
}

/**
 * The least time between two frames. A redraw costs a few milliseconds of CPU (the screen text
 * and blessed's diff of it); a busy run changes the state fifty times a second, so
 * frames are paced rather than drawn per change: about seven a second at most. Watching a
 * 200-node run at 50 events a second then costs 8–9 % of a core (`npm run bench -- dashboard`),
 * and a change reaches the screen within about 175 ms (p95).
 */
export const DEFAULT_REDRAW_MS = 150;
/** A change after a quiet spell waits this long for the changes that come with it (a follower's batch, a burst of appends). */
const COALESCE_MS = 16;
const CLOCK_TICK_MS = 1_000;

/** The blessed screen over a run's state: draws `renderScreen` and maps keys to state changes and actions. */
export function openDashboard(options: OpenDashboardOptions): Dashboard {
  const now = options.now ?? Date.now;
  const redrawMs = options.redrawMs ?? DEFAULT_REDRAW_MS;
  const screen = blessed.screen({
    input: options.terminal.input as never,
    output: options.terminal.output as never,
    smartCSR: true,
    warnings: false,
    fullUnicode: true,
    autoPadding: false,
    title: `dagent ${options.state.view.runId}`,
  });
  // The screen's lines are written straight into blessed's buffer (screen-cells.ts): no element,
  // so a frame touches only the lines whose text changed, and blessed only sends the difference.
  const shownLines: string[] = [];
  type ScreenBuffer = { lines: (Cell[] & { dirty?: boolean })[]; dattr: number };
  const buffer = screen as unknown as ScreenBuffer;
  let state = options.state;
  let rowOrder: string[] = [];
  let pending: NodeJS.Timeout | undefined;
  let lastDrawAt = -Infinity;
  let closed = false;
  let detach!: () => void;
  const detached = new Promise<void>((resolve) => (detach = resolve));

  const draw = (force = false): void => {
    pending = undefined;
    if (closed) return;
    const width = Math.max(40, Number(screen.width) || 80);
    const height = Math.max(10, Number(screen.height) || 24);
    lastDrawAt = Date.now();
    const rendered = renderScreen(state, { width, height }, { color: options.color, now: now() });
    rowOrder = rendered.rowOrder;
    let changed = false;
    for (const [index, row] of buffer.lines.entries()) {
      const text = rendered.lines[index] ?? '';
      if (!force && text === shownLines[index]) continue;
      shownLines[index] = text;
      const cells = lineCells(text, row.length, buffer.dattr);
      for (const [column, cell] of cells.entries()) row[column] = cell;
      row.dirty = true;
      changed = true;
    }
    if (changed) screen.render();
    options.onRender?.(state.view.lastSeq);
  };
  const schedule = (): void => {
    if (pending !== undefined || closed) return;
    pending = setTimeout(draw, Math.max(COALESCE_MS, lastDrawAt + redrawMs - Date.now()));
  };
  const update = (next: DashboardState): void => {
    state = next;
    schedule();
  };
  const act = (run: () => Promise<string>): void => {
    update(withNotice(state, 'writing the answer to the log…'));
    run().then(
      (notice) => update(withNotice(state, notice)),
      (error: unknown) => update(withNotice(state, `failed: ${error instanceof Error ? error.message : String(error)}`)),
    );
  };
  const answer = (decision: 'approve' | 'deny'): void => {
    const approval = approvalToAnswer(state);
    if (approval === undefined) return update(withNotice(state, 'no approval is waiting'));
    act(() => (decision === 'approve' ? options.actions.approve(approval) : options.actions.deny(approval)));
  };

  screen.key(['up', 'k'], () => update(moveSelection(state, rowOrder, -1)));
  screen.key(['down', 'j'], () => update(moveSelection(state, rowOrder, 1)));
  screen.key(['enter'], () => update(togglePanel(state, 'details')));
  screen.key(['?'], () => update(togglePanel(state, 'help')));
  screen.key(['a'], () => answer('approve'));
  screen.key(['d'], () => answer('deny'));
  screen.key(['c'], () => {
    if (isTerminalRunStatus(state.view.status)) return update(withNotice(state, `the run is already ${state.view.status}`));
    if (!state.confirmingCancel) return update({ ...state, confirmingCancel: true, notice: null });
    state = { ...state, confirmingCancel: false };
    act(() => options.actions.cancel());
  });
  screen.key(['q', 'C-c'], () => close());
  screen.on('keypress', (_char: unknown, key: { name?: string } | undefined) => {
    if (state.confirmingCancel && key?.name !== 'c') update({ ...state, confirmingCancel: false });
  });
  screen.on('resize', () => draw(true));
  const clock = setInterval(() => {
    if (!isTerminalRunStatus(state.view.status)) schedule();
  }, CLOCK_TICK_MS);
  clock.unref();
  draw();

  function close(): void {
    if (closed) return;
    closed = true;
    clearInterval(clock);
    if (pending !== undefined) clearTimeout(pending);
    screen.destroy();
    detach();
  }

  return {
    push(events) {
      if (events.length > 0) update(applyEvents(state, events));
    },
    setOrphan(orphan) {
      update({ ...state, orphan });
    },
    state: () => state,
    detached,
    close,
  };
}

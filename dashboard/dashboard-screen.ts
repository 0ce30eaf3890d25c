import blessed from 'blessed';
import { isTerminalRunStatus, type PendingApproval, type SessionEvent } from '../engine/index.js';
import { applyEvents, approvalToAnswer, moveSelection, togglePanel, withNotice, type DashboardState } from './dashboard-state.js';
import { renderScreen } from './render-screen.js';

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
  /** Redraws are grouped: at most one per this many milliseconds. */
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

export const DEFAULT_REDRAW_MS = 80;
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
  const box = blessed.box({ parent: screen, top: 0, left: 0, width: '100%', height: '100%', tags: true, wrap: false });
  let state = options.state;
  let rowOrder: string[] = [];
  let pending: NodeJS.Timeout | undefined;
  let closed = false;
  let detach!: () => void;
  const detached = new Promise<void>((resolve) => (detach = resolve));

  const draw = (): void => {
    pending = undefined;
    if (closed) return;
    const width = Math.max(40, Number(screen.width) || 80);
    const height = Math.max(10, Number(screen.height) || 24);
    const rendered = renderScreen(state, { width, height }, { color: options.color, now: now() });
    rowOrder = rendered.rowOrder;
    box.setContent(rendered.lines.join('\n'));
    screen.render();
    options.onRender?.(state.view.lastSeq);
  };
  const schedule = (): void => {
    if (pending === undefined && !closed) pending = setTimeout(draw, redrawMs);
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
  screen.on('resize', () => draw());
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

import { reduceRunView, type PendingApproval, type RunView, type SessionEvent } from '../engine/index.js';
import { tailLines, type TailLine } from './event-tail-line.js';

/** Lines kept per node for its live events. */
export const MAX_TAIL_LINES = 200;

export type DashboardPanel = 'events' | 'details' | 'help';

/** Everything the screen shows: the run's fold plus what only the screen needs (selection, tails). */
export interface DashboardState {
  readonly view: RunView;
  readonly tails: ReadonlyMap<string, readonly TailLine[]>;
  /** The selected node; until the user moves, it follows the node that last did something. */
  readonly selected: string | null;
  readonly following: boolean;
  readonly panel: DashboardPanel;
  /** The process running the run is gone. */
  readonly orphan: { readonly pid: number } | null;
  /** One line of feedback for the last key (approved, cancel asked, …). */
  readonly notice: string | null;
  /** `c` was pressed once: the next `c` cancels the run. */
  readonly confirmingCancel: boolean;
  /** Whether this screen was opened by the process running the run (detach then keeps it going). */
  readonly attached: boolean;
  /** A message being written for a running node (`m`): every key goes into it until enter or escape. */
  readonly composing: { readonly nodeId: string; readonly text: string } | null;
}

export function createDashboardState(view: RunView, options: { attached: boolean }): DashboardState {
  return { view, tails: new Map(), selected: null, following: true, panel: 'events', orphan: null, notice: null, confirmingCancel: false, attached: options.attached, composing: null };
}

/** Folds new events into the view and the node tails; the selection follows activity until the user moves it. */
export function applyEvents(state: DashboardState, events: readonly SessionEvent[]): DashboardState {
  if (events.length === 0) return state;
  let view = state.view;
  const tails = new Map(state.tails);
  let active: string | null = null;
  for (const event of events) {
    view = reduceRunView(view, event);
    if (event.nodeId === null) continue;
    const lines = tailLines(event);
    if (lines.length > 0) {
      const before = tails.get(event.nodeId) ?? [];
      const next = before.length + lines.length > MAX_TAIL_LINES ? [...before.slice(before.length + lines.length - MAX_TAIL_LINES), ...lines] : [...before, ...lines];
      tails.set(event.nodeId, next);
    }
    if (view.nodes.get(event.nodeId)?.status === 'running') active = event.nodeId;
  }
  const selected = state.following && active !== null ? active : state.selected ?? view.order[0] ?? null;
  return { ...state, view, tails, selected };
}

/** Moves the selection by `delta` in `order` (the screen's row order) and stops following. */
export function moveSelection(state: DashboardState, order: readonly string[], delta: number): DashboardState {
  if (order.length === 0) return state;
  const at = state.selected === null ? -1 : order.indexOf(state.selected);
  const next = Math.min(order.length - 1, Math.max(0, at + delta));
  return { ...state, selected: order[next] ?? null, following: false, confirmingCancel: false, notice: null };
}

export function togglePanel(state: DashboardState, panel: Exclude<DashboardPanel, 'events'>): DashboardState {
  return { ...state, panel: state.panel === panel ? 'events' : panel, confirmingCancel: false };
}

/** The approval `a` / `d` answers: the selected node's oldest, else the run's oldest. */
export function approvalToAnswer(state: DashboardState): PendingApproval | undefined {
  const approvals = state.view.approvals;
  return approvals.find((approval) => approval.nodeId === state.selected) ?? approvals[0];
}

export function withNotice(state: DashboardState, notice: string | null): DashboardState {
  return { ...state, notice };
}

/** What a key does to a message being written: add to it, take the last character off, send it, or drop it. */
export type ComposeVerdict = { readonly kind: 'edit'; readonly text: string } | { readonly kind: 'send'; readonly text: string } | { readonly kind: 'drop' };

/** One key pressed while writing a message (`m`). Pure. */
export function composeKey(text: string, key: { readonly name?: string; readonly ctrl?: boolean }, char: string | undefined): ComposeVerdict {
  if (key.name === 'escape' || (key.ctrl === true && key.name === 'c')) return { kind: 'drop' };
  if (key.name === 'enter' || key.name === 'return') return text.trim() === '' ? { kind: 'drop' } : { kind: 'send', text: text.trim() };
  if (key.name === 'backspace') return { kind: 'edit', text: [...text].slice(0, -1).join('') };
  if (char !== undefined && key.ctrl !== true && char >= ' ' && char !== '\x7f') return { kind: 'edit', text: text + char };
  return { kind: 'edit', text };
}

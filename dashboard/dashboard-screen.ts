import blessed from 'blessed';
import { isTerminalRunStatus, type PendingApproval, type SessionEvent } from '../engine/index.js';
import { applyEvents, approvalToAnswer, composeKey, moveSelection, togglePanel, withNotice, type DashboardState } from './dashboard-state.js';
import { DASHBOARD_KEYS, type DashboardControls } from './dashboard-keys.js';
import { renderScreen } from './render-screen.js';
import { lineCells, type Cell } from './screen-cells.js';

/** What the keys do to the run; the composition root writes them to the run's log. Each resolves to a line of feedback. */
export interface DashboardActions {
  approve(approval: PendingApproval): Promise<string>;
  deny(approval: PendingApproval): Promise<string>;
  cancel(): Promise<string>;
  /** Runs a node again with every node after it: a new plan version, their changes reverted, the run started again. */
  rerun(nodeId: string): Promise<string>;
  /** A word for a running node (`dagent say`). */
  say(nodeId: string, text: string): Promise<string>;
  /** Pauses a running node at its next step (`dagent pause`). */
  pause(nodeId: string): Promise<string>;
  /** Lets a paused node go on (`dagent resume --node`). */
  resume(nodeId: string): Promise<string>;
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

/** The blessed screen over a run's state: draws `renderScreen` and binds the keys of `DASHBOARD_KEYS`. */
export function openDashboard(options: OpenDashboardOptions): Dashboard {
  return new DashboardScreen(options);
}

type ScreenBuffer = { lines: (Cell[] & { dirty?: boolean })[]; dattr: number };

class DashboardScreen implements Dashboard {
  readonly #options: OpenDashboardOptions;
  readonly #now: () => number;
  readonly #redrawMs: number;
  readonly #screen: blessed.Widgets.Screen;
  /** The lines on screen, to skip those whose text did not change. */
  readonly #shownLines: string[] = [];
  readonly #clock: NodeJS.Timeout;
  #state: DashboardState;
  #rowOrder: string[] = [];
  #pending: NodeJS.Timeout | undefined;
  #lastDrawAt = -Infinity;
  #closed = false;
  #detach!: () => void;
  readonly detached = new Promise<void>((resolve) => (this.#detach = resolve));

  constructor(options: OpenDashboardOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#redrawMs = options.redrawMs ?? DEFAULT_REDRAW_MS;
    this.#state = options.state;
    this.#screen = blessed.screen({
      input: options.terminal.input as never,
      output: options.terminal.output as never,
      smartCSR: true,
      warnings: false,
      fullUnicode: true,
      autoPadding: false,
      title: `dagent ${options.state.view.runId}`,
    });
    this.#bindKeys();
    this.#screen.on('resize', () => this.#draw(true));
    this.#clock = setInterval(() => {
      if (!isTerminalRunStatus(this.#state.view.status)) this.#schedule();
    }, CLOCK_TICK_MS);
    this.#clock.unref();
    this.#draw();
  }

  push(events: readonly SessionEvent[]): void {
    if (events.length > 0) this.#update(applyEvents(this.#state, events));
  }

  setOrphan(orphan: { pid: number } | null): void {
    this.#update({ ...this.#state, orphan });
  }

  state(): DashboardState {
    return this.#state;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#clock);
    if (this.#pending !== undefined) clearTimeout(this.#pending);
    this.#screen.destroy();
    this.#detach();
  }

  /**
   * Every entry of the key table, bound; any other key ends a pending cancel confirmation. While a
   * message is written (`m`), every key goes into it and none runs its command.
   */
  #bindKeys(): void {
    const controls = this.#controls();
    let composed: unknown;
    for (const entry of DASHBOARD_KEYS) {
      this.#screen.key([...entry.keys], (_char: unknown, key: unknown) => {
        if (this.#state.composing === null && key !== composed) entry.action(controls);
      });
    }
    const cancelKeys = new Set(DASHBOARD_KEYS.filter((entry) => entry.command === 'cancel').flatMap((entry) => entry.keys));
    this.#screen.on('keypress', (char: string | undefined, key: { name?: string; ctrl?: boolean } | undefined) => {
      if (this.#state.composing !== null) {
        composed = key;
        return this.#compose(this.#state.composing, key ?? {}, char);
      }
      if (this.#state.confirmingCancel && !cancelKeys.has(key?.name ?? '')) this.#update({ ...this.#state, confirmingCancel: false });
    });
  }

  #compose(composing: NonNullable<DashboardState['composing']>, key: { name?: string; ctrl?: boolean }, char: string | undefined): void {
    const verdict = composeKey(composing.text, key, char);
    if (verdict.kind === 'edit') return this.#update({ ...this.#state, composing: { ...composing, text: verdict.text } });
    this.#state = { ...this.#state, composing: null };
    if (verdict.kind === 'drop') return this.#update(withNotice(this.#state, 'message dropped'));
    this.#act(() => this.#options.actions.say(composing.nodeId, verdict.text));
  }

  #controls(): DashboardControls {
    return {
      move: (delta) => this.#update(moveSelection(this.#state, this.#rowOrder, delta)),
      toggle: (panel) => this.#update(togglePanel(this.#state, panel)),
      answer: (decision) => {
        const approval = approvalToAnswer(this.#state);
        if (approval === undefined) return this.#update(withNotice(this.#state, 'no approval is waiting'));
        this.#act(() => (decision === 'approve' ? this.#options.actions.approve(approval) : this.#options.actions.deny(approval)));
      },
      cancel: () => {
        const state = this.#state;
        if (isTerminalRunStatus(state.view.status)) return this.#update(withNotice(state, `the run is already ${state.view.status}`));
        if (!state.confirmingCancel) return this.#update({ ...state, confirmingCancel: true, notice: null });
        this.#state = { ...state, confirmingCancel: false };
        this.#act(() => this.#options.actions.cancel());
      },
      rerun: () => {
        const { view, selected } = this.#state;
        if (selected === null) return this.#update(withNotice(this.#state, 'select a node to run again'));
        if (view.status === 'running' && this.#state.orphan === null) return this.#update(withNotice(this.#state, 'the run is running: stop it first (c c), then R'));
        this.#act(() => this.#options.actions.rerun(selected));
      },
      say: () => {
        const node = this.#runningSelection('write to');
        if (node !== undefined) this.#update({ ...this.#state, composing: { nodeId: node, text: '' }, notice: null, confirmingCancel: false });
      },
      pause: () => {
        const node = this.#runningSelection('pause');
        if (node === undefined) return;
        const paused = (this.#state.view.nodes.get(node)?.pause ?? null) !== null;
        this.#act(() => (paused ? this.#options.actions.resume(node) : this.#options.actions.pause(node)));
      },
      detach: () => this.close(),
    };
  }

  /** The selected node when it is running; otherwise a notice says why nothing happens. */
  #runningSelection(verb: string): string | undefined {
    const { selected, view } = this.#state;
    const node = selected === null ? undefined : view.nodes.get(selected);
    if (node === undefined) return void this.#update(withNotice(this.#state, `select a running node to ${verb}`));
    if (node.status !== 'running') return void this.#update(withNotice(this.#state, `${node.id} is ${node.status}, not running: only a running node can be told or paused`));
    return node.id;
  }

  /** Runs an action on the run, with its feedback on the screen. */
  #act(run: () => Promise<string>): void {
    this.#update(withNotice(this.#state, 'writing the answer to the log…'));
    run().then(
      (notice) => this.#update(withNotice(this.#state, notice)),
      (error: unknown) => this.#update(withNotice(this.#state, `failed: ${error instanceof Error ? error.message : String(error)}`)),
    );
  }

  #update(next: DashboardState): void {
    this.#state = next;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#pending !== undefined || this.#closed) return;
    this.#pending = setTimeout(() => this.#draw(), Math.max(COALESCE_MS, this.#lastDrawAt + this.#redrawMs - Date.now()));
  }

  /**
   * The screen's lines are written straight into blessed's buffer (screen-cells.ts): no element,
   * so a frame touches only the lines whose text changed, and blessed only sends the difference.
   */
  #draw(force = false): void {
    this.#pending = undefined;
    if (this.#closed) return;
    const screen = this.#screen;
    const width = Math.max(40, Number(screen.width) || 80);
    const height = Math.max(10, Number(screen.height) || 24);
    this.#lastDrawAt = Date.now();
    const rendered = renderScreen(this.#state, { width, height }, { color: this.#options.color, now: this.#now() });
    this.#rowOrder = rendered.rowOrder;
    const buffer = screen as unknown as ScreenBuffer;
    let changed = false;
    for (const [index, row] of buffer.lines.entries()) {
      const text = rendered.lines[index] ?? '';
      if (!force && text === this.#shownLines[index]) continue;
      this.#shownLines[index] = text;
      const cells = lineCells(text, row.length, buffer.dattr);
      for (const [column, cell] of cells.entries()) row[column] = cell;
      row.dirty = true;
      changed = true;
    }
    if (changed) screen.render();
    this.#options.onRender?.(this.#state.view.lastSeq);
  }
}

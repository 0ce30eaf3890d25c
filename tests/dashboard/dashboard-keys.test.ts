import { PassThrough } from 'node:stream';
import blessed from 'blessed';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DASHBOARD_KEYS, KEY_HELP, createDashboardState, openDashboard, plainText, renderScreen, togglePanel, type Dashboard } from '../../dashboard/index.js';
import { emptyRunView } from '../../engine/index.js';

const state = createDashboardState(emptyRunView('r-1'), { attached: false });

describe('the dashboard keys, one table', () => {
  let dashboard: Dashboard | undefined;
  afterEach(() => {
    dashboard?.close();
    vi.restoreAllMocks();
  });

  it('lists every entry in the help panel and in the key hint', () => {
    const help = renderScreen(togglePanel(state, 'help'), { width: 120, height: 40 }, { color: false, now: 0 }).lines.map(plainText).join('\n');
    for (const entry of DASHBOARD_KEYS) {
      expect(help, entry.command).toContain(`${entry.label.padEnd(11)}${entry.description.split('\n')[0]}`);
      expect(KEY_HELP, entry.command).toContain(entry.hint);
    }
    expect(KEY_HELP).toBe('↑↓/jk select · enter details · a/d approve/deny · c cancel · ? help · q detach');
    // Two commands of the table are never bound to the same key.
    const keys = DASHBOARD_KEYS.flatMap((entry) => entry.keys);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('binds every entry on the screen, and a key does what its entry says', async () => {
    const screens: blessed.Widgets.Screen[] = [];
    const original = blessed.screen;
    vi.spyOn(blessed, 'screen').mockImplementation((options) => {
      const screen = original(options);
      screens.push(screen);
      return screen;
    });
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
    output.resume();
    const actions = { approve: vi.fn(async () => 'approved'), deny: vi.fn(async () => 'denied'), cancel: vi.fn(async () => 'cancelling'), rerun: vi.fn(async () => 'rerunning') };
    dashboard = openDashboard({ terminal: { input, output }, state, actions, color: false, redrawMs: 0 });
    const [screen] = screens;
    for (const entry of DASHBOARD_KEYS) {
      for (const key of entry.keys) expect(screen!.listeners(`key ${key}`), `${entry.command}: ${key}`).not.toHaveLength(0);
    }

    input.write('?');
    await vi.waitFor(() => expect(dashboard!.state().panel).toBe('help'));
    input.write('c');
    await vi.waitFor(() => expect(dashboard!.state().confirmingCancel).toBe(true));
    input.write('c');
    await vi.waitFor(() => expect(actions.cancel).toHaveBeenCalledOnce());
    input.write('q');
    await dashboard.detached;
  });

  it('R runs the selected node of a stopped run again, and asks to stop a running one first', async () => {
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
    output.resume();
    const actions = { approve: vi.fn(async () => 'approved'), deny: vi.fn(async () => 'denied'), cancel: vi.fn(async () => 'cancelling'), rerun: vi.fn(async () => 'plan v3: edit-digest, test run again') };
    const running = { ...state, view: { ...state.view, status: 'running' as const }, selected: 'edit-digest' };
    dashboard = openDashboard({ terminal: { input, output }, state: running, actions, color: false, redrawMs: 0 });
    input.write('R');
    await vi.waitFor(() => expect(dashboard!.state().notice).toBe('the run is running: stop it first (c c), then R'));
    dashboard.close();

    dashboard = openDashboard({ terminal: { input, output }, state: { ...running, view: { ...running.view, status: 'succeeded' } }, actions, color: false, redrawMs: 0 });
    input.write('R');
    await vi.waitFor(() => expect(dashboard!.state().notice).toBe('plan v3: edit-digest, test run again'));
    expect(actions.rerun).toHaveBeenCalledWith('edit-digest');
  });
});

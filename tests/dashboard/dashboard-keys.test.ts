import { PassThrough } from 'node:stream';
import blessed from 'blessed';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DASHBOARD_KEYS, KEY_HELP, createDashboardState, openDashboard, plainText, renderScreen, togglePanel, type Dashboard } from '../../dashboard/index.js';
import { emptyRunView } from '../../engine/index.js';
import { newNodeView } from '../../engine/run/views/node-view.js';

const state = createDashboardState(emptyRunView('r-1'), { attached: false });

function steering() {
  return { say: vi.fn(async (nodeId: string) => `told ${nodeId}`), pause: vi.fn(async (nodeId: string) => `pausing ${nodeId}`), resume: vi.fn(async (nodeId: string) => `${nodeId} goes on`) };
}

function terminal() {
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 100, rows: 30 });
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
  output.resume();
  return { input, output };
}

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
    const actions = { approve: vi.fn(async () => 'approved'), deny: vi.fn(async () => 'denied'), cancel: vi.fn(async () => 'cancelling'), rerun: vi.fn(async () => 'rerunning'), ...steering() };
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
    const actions = { approve: vi.fn(async () => 'approved'), deny: vi.fn(async () => 'denied'), cancel: vi.fn(async () => 'cancelling'), rerun: vi.fn(async () => 'plan v3: edit-digest, test run again'), ...steering() };
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

  it('m writes a message to the selected running node: keys go into it, enter sends it; p pauses it, p again resumes', async () => {
    const actions = { approve: vi.fn(async () => 'approved'), deny: vi.fn(async () => 'denied'), cancel: vi.fn(async () => 'cancelling'), rerun: vi.fn(async () => 'rerunning'), ...steering() };
    const node = { ...newNodeView('edit-a'), status: 'running' as const };
    const running = { ...state, view: { ...state.view, status: 'running' as const, nodes: new Map([['edit-a', node]]), order: ['edit-a'] }, selected: 'edit-a' };
    const { input, output } = terminal();
    dashboard = openDashboard({ terminal: { input, output }, state: running, actions, color: false, redrawMs: 0 });

    input.write('m');
    await vi.waitFor(() => expect(dashboard!.state().composing).toEqual({ nodeId: 'edit-a', text: '' }));
    input.write('use qx');
    input.write('\x7f');
    input.write(' tabs');
    await vi.waitFor(() => expect(dashboard!.state().composing?.text).toBe('use q tabs'));
    const screen = renderScreen(dashboard.state(), { width: 100, height: 30 }, { color: false, now: 0 }).lines.map(plainText).join('\n');
    expect(screen).toContain('✎ to edit-a: use q tabs▏  enter sends · esc drops');
    input.write('\r');
    await vi.waitFor(() => expect(dashboard!.state().notice).toBe('told edit-a'));
    expect(actions.say).toHaveBeenCalledWith('edit-a', 'use q tabs');
    // While writing, q and c were text, not commands: the screen is still open and no cancel was asked.
    expect(actions.cancel).not.toHaveBeenCalled();
    expect(dashboard.state().panel).toBe('events');

    input.write('p');
    await vi.waitFor(() => expect(actions.pause).toHaveBeenCalledWith('edit-a'));
    dashboard.push([{ seq: 1, runId: 'r-1', nodeId: 'edit-a', turn: 1, step: 1, type: 'node/pause-requested', payload: {}, createdAt: '2026-12-03T00:00:00.000Z' }]);
    dashboard.push([{ seq: 2, runId: 'r-1', nodeId: 'edit-a', turn: 1, step: 1, type: 'node/paused', payload: {}, createdAt: '2026-12-03T00:00:01.000Z' }]);
    const pausedScreen = renderScreen(dashboard.state(), { width: 100, height: 30 }, { color: false, now: 0 }).lines.map(plainText).join('\n');
    expect(pausedScreen).toContain('‖ edit-a · agent · paused');
    expect(pausedScreen).toMatch(/^‖ edit-a/m);
    input.write('p');
    await vi.waitFor(() => expect(actions.resume).toHaveBeenCalledWith('edit-a'));
  });

  it('m on a node that is not running says so and writes nothing', async () => {
    const actions = { approve: vi.fn(async () => 'approved'), deny: vi.fn(async () => 'denied'), cancel: vi.fn(async () => 'cancelling'), rerun: vi.fn(async () => 'rerunning'), ...steering() };
    const node = { ...newNodeView('edit-a'), status: 'succeeded' as const };
    const { input, output } = terminal();
    dashboard = openDashboard({ terminal: { input, output }, state: { ...state, view: { ...state.view, nodes: new Map([['edit-a', node]]), order: ['edit-a'] }, selected: 'edit-a' }, actions, color: false, redrawMs: 0 });
    input.write('m');
    await vi.waitFor(() => expect(dashboard!.state().notice).toBe('edit-a is succeeded, not running: only a running node can be told or paused'));
    expect(dashboard.state().composing).toBeNull();
  });
});

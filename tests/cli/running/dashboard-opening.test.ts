import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as DashboardModule from '../../../dashboard/index.js';
import type * as EngineModule from '../../../engine/index.js';
import { runCli } from '../../helpers/cli-harness.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * `dagent dashboard <run>` folds the run's log so far into the screen, then follows it. An event
 * another process appends between that first read and the follower's start reaches the screen
 * (the follower's first read delivers it before the follower is handed back), and the command
 * neither crashes nor loses it.
 */

const pushed: string[] = [];
let appendDuringOpening: ((db: EngineModule.Store['db'], runId: string) => Promise<void>) | undefined;

vi.mock('../../../engine/index.js', async (importOriginal) => {
  const actual = await importOriginal<typeof EngineModule>();
  return {
    ...actual,
    // The dashboard's first read of the log; right after it, "another process" appends one event.
    readEvents: async (...args: Parameters<typeof actual.readEvents>) => {
      const events = await actual.readEvents(...args);
      const append = appendDuringOpening;
      appendDuringOpening = undefined;
      if (append !== undefined) await append(args[0], args[1]);
      return events;
    },
  };
});

vi.mock('../../../dashboard/index.js', async (importOriginal) => {
  const actual = await importOriginal<typeof DashboardModule>();
  return {
    ...actual,
    // A screen the user quits as soon as a followed event reaches it.
    openDashboard: (options: DashboardModule.OpenDashboardOptions): DashboardModule.Dashboard => {
      let state = options.state;
      let quit: () => void = () => undefined;
      const detached = new Promise<void>((resolve) => (quit = resolve));
      return {
        push(events) {
          pushed.push(...events.map((event) => event.type));
          state = actual.applyEvents(state, events);
          quit();
        },
        setOrphan: () => undefined,
        state: () => state,
        detached,
        close: () => undefined,
      };
    },
  };
});

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  temp = tempDir('dagent-dashboard-opening-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), PATH: process.env.PATH };
  pushed.length = 0;
});

afterEach(() => temp.cleanup());

describe('opening the dashboard of a run', () => {
  it('shows an event appended while it opens, and detaches cleanly', async () => {
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Write a note', nodes: [{ id: 'note', kind: 'command', title: 'Write a note', command: 'echo done > note.txt' }] }));
    const script = join(temp.dir, 'script.json');
    writeFileSync(script, JSON.stringify({ agents: {} }));
    const planned = await runCli(['plan', '--from', 'plan.json', '--model', `scripted:${script}`], { cwd: workspace, env });
    expect(planned.code, planned.stderr).toBe(0);
    const runId = /run (\S+) /.exec(planned.stdout)![1]!;
    appendDuringOpening = async (db, id) => {
      const { runLog } = await vi.importActual<typeof EngineModule>('../../../engine/index.js');
      await runLog(db, id).append({ type: 'node/told', nodeId: 'note', payload: { content: 'use the short form', by: 'another terminal' } });
    };

    const shown = await runCli(['dashboard', runId], { cwd: workspace, env, terminal: true });

    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    expect(pushed).toEqual(['node/told']);
    expect(shown.stdout).toContain(`detached from run ${runId}`);
  });
});

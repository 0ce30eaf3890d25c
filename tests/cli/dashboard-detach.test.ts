import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as DashboardModule from '../../dashboard/index.js';
import { detectSandbox } from '../../tools/index.js';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * `dagent run` on a terminal shows the dashboard; quitting it (`q`) only detaches, and progress
 * lines take over. When they cannot (here the screen's state is gone by then), the user reads one
 * line on stderr and the run still ends with its summary line: no unhandled rejection ends the process
 * mid-run.
 */

vi.mock('../../dashboard/index.js', async (importOriginal) => {
  const actual = await importOriginal<typeof DashboardModule>();
  return {
    ...actual,
    // A screen the user quits as soon as the run's first event reaches it; its state is torn down with it.
    openDashboard: (options: DashboardModule.OpenDashboardOptions): DashboardModule.Dashboard => {
      let state = options.state;
      let quit: () => void = () => undefined;
      let gone = false;
      const detached = new Promise<void>((resolve) => (quit = resolve));
      return {
        push(events) {
          state = actual.applyEvents(state, events);
          gone = true;
          quit();
        },
        setOrphan: () => undefined,
        state() {
          if (gone) throw new Error('the screen was taken down');
          return state;
        },
        detached,
        close: () => undefined,
      };
    },
  };
});

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;
const unhandled: unknown[] = [];
const recordUnhandled = (reason: unknown): void => void unhandled.push(reason);

beforeEach(() => {
  temp = tempDir('dagent-detach-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(join(temp.dir, 'home'));
  env = { HOME: join(temp.dir, 'home'), PATH: process.env.PATH };
  unhandled.length = 0;
  process.on('unhandledRejection', recordUnhandled);
});

afterEach(() => {
  process.off('unhandledRejection', recordUnhandled);
  temp.cleanup();
});


describe.skipIf(!detectSandbox().available)('quitting the dashboard of a running run', () => {
  it('says in one line that progress lines could not take over, and the run still ends with its summary', async () => {
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Write a note', nodes: [{ id: 'note', kind: 'command', title: 'Write a note', command: 'echo done > note.txt' }] }));
    const script = join(temp.dir, 'script.json');
    writeFileSync(script, JSON.stringify({ agents: {} }));
    const planned = await runCli(['plan', '--from', 'plan.json', '--model', `scripted:${script}`], { cwd: workspace, env });
    expect(planned.code, planned.stderr).toBe(0);
    const runId = /run (\S+) /.exec(planned.stdout)![1]!;
    expect((await runCli(['approve', runId], { cwd: workspace, env })).code).toBe(0);

    const ran = await runCli(['run', runId], { cwd: workspace, env, terminal: true });
    await new Promise((resolve) => setImmediate(resolve));

    expect(unhandled).toEqual([]);
    expect(ran.stderr).toContain(`dagent: the dashboard closed, but progress lines could not take over (the screen was taken down); the run goes on: \`dagent status ${runId}\` shows it`);
    expect(ran.stdout).toContain(`run ${runId} succeeded`);
    expect(ran.code).toBe(0);
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('done\n');
  });
});

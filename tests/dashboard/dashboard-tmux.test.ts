import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * The dashboard in a real terminal: a scripted run goes on in a background process (no terminal,
 * approvals wait for an answer in the log) while `dagent dashboard` attaches to it in tmux.
 * Everything is read back with capture-pane, as a person would see it.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DAGENT = join(ROOT, 'bin', 'dagent.js');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const SOCKET = `dagent-test-${process.pid}`;
const SESSION = 'dash';

const plan = {
  goal: 'Write a note after reading the docs',
  rationale: 'Two readers in parallel, then one writer.',
  nodes: [
    { id: 'read-docs', kind: 'read', title: 'Read the long docs', instructions: 'Read big.md and list what it covers.', reads: ['big.md'], writes: [], dependsOn: [] },
    { id: 'read-seed', kind: 'read', title: 'Read the seed', instructions: 'Read seed.txt.', reads: ['seed.txt'], writes: [], dependsOn: [] },
    { id: 'write-note', kind: 'edit', title: 'Write the note', instructions: 'Write note.txt.', reads: [], writes: ['note.txt'], dependsOn: ['read-docs', 'read-seed'] },
  ],
};

const read = (id: string, path: string) => ({ latencyMs: 500, toolCalls: [{ id, name: 'read_file', args: { path } }] });
const grep = (id: string, pattern: string) => ({ latencyMs: 500, toolCalls: [{ id, name: 'grep', args: { pattern } }] });
const script = {
  contextWindow: 10_000,
  agents: {
    'node:read-docs': [
      { latencyMs: 600, toolCalls: [{ id: 'd1', name: 'read_file', args: { path: 'big.md' } }] },
      read('d2', 'seed.txt'),
      grep('d3', 'release'),
      grep('d4', 'Section 1\\b'),
      read('d5', 'plan.json'),
      grep('d6', 'announce'),
      { latencyMs: 500, text: 'big.md covers the release process.' },
    ],
    'node:read-seed': [read('s1', 'seed.txt'), { latencyMs: 1500, text: 'seed.txt holds one line.' }],
    'node:write-note': [
      { latencyMs: 500, toolCalls: [{ id: 'w1', name: 'run_command', args: { command: 'echo "read the docs" > note.txt' } }] },
      { latencyMs: 500, text: 'Wrote note.txt.' },
    ],
    summarizer: [
      { latencyMs: 300, text: '## Summary\n\nbig.md describes the release process in many sections; nothing is changed.' },
      { latencyMs: 300, text: '## Summary\n\nThe node read its files.' },
      { latencyMs: 300, text: '## Summary\n\nThe node read its files.' },
    ],
  },
};

let workspace: string;
let runId: string;
let runner: ChildProcess;
let runnerExit: Promise<number | null>;

const tmux = (...args: string[]): string => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = (): string => tmux('capture-pane', '-p', '-t', SESSION);
const dagent = (...args: string[]): string => execFileSync(process.execPath, [DAGENT, '-w', workspace, ...args], { cwd: workspace, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });

async function until(check: (text: string) => boolean, what: string, timeout = 30_000): Promise<string> {
  let last = '';
  await vi.waitFor(
    () => {
      last = screen();
      if (!check(last)) throw new Error(`the screen does not show ${what} yet:\n${last}`);
    },
    { timeout, interval: 200 },
  );
  return last;
}

describe.skipIf(!hasTmux)('the dashboard in tmux, attached to a run going on in another process', { timeout: 90_000 }, () => {
  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), 'dagent-dashboard-'));
    const sections = Array.from({ length: 160 }, (_, index) => `## Section ${index + 1}\n\nStep ${index + 1} of the release: build, sign, upload and announce version ${index}.${index}.0.\n`);
    writeFileSync(join(workspace, 'big.md'), `# Releases\n\n${sections.join('\n')}`);
    writeFileSync(join(workspace, 'seed.txt'), 'one line\n');
    writeFileSync(join(workspace, 'plan.json'), JSON.stringify(plan));
    writeFileSync(join(workspace, 'script.json'), JSON.stringify(script));
    runId = /r-[0-9a-f]+/.exec(dagent('plan', '--from', 'plan.json'))![0];
    dagent('approve', runId);
    runner = spawn(process.execPath, [DAGENT, '-w', workspace, '--model', `scripted:${join(workspace, 'script.json')}`, '--approval', 'suggest', 'run', runId, '--no-dashboard', '--approve-from-dashboard'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    runnerExit = new Promise((resolve) => runner.on('exit', (code) => resolve(code)));
    tmux('new-session', '-d', '-s', SESSION, '-x', '120', '-y', '40', '-e', 'NCURSES_NO_UTF8_ACS=1', `${process.execPath} ${DAGENT} -w ${workspace} dashboard ${runId}; sleep 60`);
  });

  afterAll(() => {
    runner?.kill('SIGKILL');
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    rmSync(workspace, { recursive: true, force: true });
  });

  it('shows the stages, the node ids, the totals and the selected node\'s gauge while the run goes on', async () => {
    const text = await until((shown) => shown.includes('· running') && shown.includes('write-note') && shown.includes('cache hit'), 'the stage list of the running run');
    expect(text).toContain(`dagent ${runId} · running`);
    for (const id of ['read-docs', 'read-seed', 'write-note']) expect(text).toContain(id);
    expect(text).toMatch(/Stage 1 · \d\/2 done/);
    expect(text).toMatch(/tokens \S+ in \(\d+% cache hit\) · \S+ out · \d+ model calls/);
    expect(text).toMatch(/context ([█░]+ \S+\/\S+ \d+%|no model request yet|none: this node runs its command without a model)/);
  });

  it('marks the node that compacted, with its tokens before → after once selected', async () => {
    const text = await until((shown) => /read-docs .*⇣/.test(shown), 'the compaction marker of read-docs');
    expect(text).toMatch(/read-docs .*\d+%⇣/);
    // Select read-docs (the first row): its panel lists the compaction as before → after.
    for (let index = 0; index < 4; index += 1) tmux('send-keys', '-t', SESSION, 'k');
    const panel = await until((shown) => shown.includes('compactions: ⇣'), 'the compactions of read-docs');
    expect(panel).toMatch(/compactions: ⇣ \S+ → \S+/);
    expect(panel).toMatch(/context [█░]+ \S+\/\S+ \d+%/);
  });

  it('answers the pending approval from the screen, and the run in the other process goes on to the end', async () => {
    await until((shown) => shown.includes('write-note asks: run_command'), 'the pending approval');
    tmux('send-keys', '-t', SESSION, 'a');
    const done = await until((shown) => shown.includes('run succeeded'), 'the end of the run');
    expect(done).toMatch(/3\/3 nodes/);
    expect(await runnerExit).toBe(0);
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('read the docs\n');
    const granted = JSON.parse(dagent('--json', 'log', runId, '--type', 'approval/granted').trim().split('\n')[0]!) as { payload: { by: string } };
    expect(granted.payload.by).toMatch(/^dashboard \(pid \d+\)$/);
  });

  it('follows a resize to 80×24', async () => {
    tmux('resize-window', '-t', SESSION, '-x', '80', '-y', '24');
    // Until the bottom lines are back: tmux cuts the old 120×40 frame to 80×24 before the redraw comes.
    const redrawn = (shown: string): boolean => shown.split('\n').filter((line) => line.includes('│')).length >= 5 && /…│/.test(shown) && !/.{81}/u.test(shown) && shown.includes('run succeeded');
    const text = await until(redrawn, 'the screen redrawn for 80 columns');
    expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(24);
    expect(text).toContain('Stage 1');
    // The last key's feedback stands where the key help was.
    expect(text).toContain('approved: run_command');
    expect(text).toContain('run succeeded');
  });

  it('detaches on q and says how to come back', async () => {
    tmux('send-keys', '-t', SESSION, 'q');
    const text = await until((shown) => shown.includes('detached from run'), 'the detach line');
    expect(text).toContain(`\`dagent dashboard ${runId}\` attaches again`);
    expect(existsSync(join(workspace, 'note.txt'))).toBe(true);
  });
});

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyEvents, createDashboardState, plainText, renderScreen } from '../../../dashboard/index.js';
import { emptyRunView, type SessionEvent } from '../../../engine/index.js';
import { DAGENT_BIN, cliEnvironment, killRunningClis, spawnCli } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * `dagent team` through the built binary, with a scripted lead on a small repository whose tests
 * fail: the lead delegates two fixes that run in parallel and an export that waits for both,
 * awaits them, runs the tests and finishes. Each delegation is a plan version of its own.
 */

vi.setConfig({ testTimeout: 120_000 });

const FIXTURE = new URL('../../fixtures/repos/team-fixes', import.meta.url).pathname;
const SCRIPT = new URL('../../fixtures/team.script.json', import.meta.url).pathname;

interface Turn {
  text?: string;
  toolCalls?: { id?: string; name: string; args: Record<string, unknown> }[];
}
type Script = { agents: Record<string, Turn[]> };

let temp: { dir: string; cleanup: () => void };
let workspace: string;

beforeEach(() => {
  temp = tempDir('dagent-team-');
  workspace = join(temp.dir, 'repo');
  cpSync(FIXTURE, workspace, { recursive: true });
});
afterEach(() => temp.cleanup());
afterAll(() => killRunningClis());

function script(change: (script: Script) => void = () => undefined): string {
  const parsed = JSON.parse(readFileSync(SCRIPT, 'utf8')) as Script;
  change(parsed);
  const file = join(temp.dir, 'team.script.json');
  writeFileSync(file, JSON.stringify(parsed));
  return file;
}

function dagent(args: readonly string[]) {
  return spawnSync(process.execPath, [DAGENT_BIN, ...args], { cwd: workspace, env: { ...cliEnvironment(), HOME: join(temp.dir, 'home') }, encoding: 'utf8' });
}

function team(scriptFile: string) {
  return dagent(['team', 'fix add() and shout(), export both from src/index.js', '-m', `scripted:${scriptFile}`, '--approval', 'auto', '--no-dashboard']);
}

function logOf(runId: string, type?: string): SessionEvent[] {
  const out = dagent(['--json', 'log', runId, ...(type === undefined ? [] : ['--type', type])]).stdout.trim();
  return out === '' ? [] : out.split('\n').map((line) => JSON.parse(line) as SessionEvent);
}

const runIdOf = (output: string): string => /run (r-[0-9a-f]+)/.exec(output)![1]!;
const testsPass = (): boolean => spawnSync(process.execPath, ['test.mjs'], { cwd: workspace }).status === 0;
const leadResults = (runId: string): string[] => logOf(runId, 'tool/result').filter((event) => event.nodeId === 'lead').map((event) => String((event.payload as { content: string }).content));

describe('dagent team, through the binary', () => {
  it('grows the plan by three delegated nodes (two in parallel, one after them), gathers their results and ends with the tests green', () => {
    expect(testsPass()).toBe(false);
    const ran = team(script());
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    const runId = runIdOf(ran.stdout);
    expect(ran.stdout).toContain('plan v2: node lead delegated "Fix add()" (fix-add)');
    expect(ran.stdout).toContain('plan v4: node lead delegated "Export both from src/index.js" (index)');
    expect(ran.stdout).toMatch(/run r-[0-9a-f]+ succeeded · plan v4 · 4\/4 nodes succeeded/);
    expect(testsPass()).toBe(true);

    const results = leadResults(runId);
    expect(results.filter((content) => content.startsWith('Delegated'))).toHaveLength(3);
    expect(results.find((content) => content.startsWith('## fix-add'))).toContain('## index: succeeded\nsrc/index.js exports add and shout.');
    expect(results.some((content) => content.includes('2 tests passed'))).toBe(true);
    // The two fixes ran side by side: the second started before the first ended.
    const life = logOf(runId).filter((event) => ['node/started', 'node/succeeded'].includes(event.type)).map((event) => `${event.type} ${event.nodeId}`);
    expect(life.indexOf('node/started fix-shout')).toBeLessThan(life.indexOf('node/succeeded fix-add'));
    expect(life.indexOf('node/started index')).toBeGreaterThan(Math.max(life.indexOf('node/succeeded fix-add'), life.indexOf('node/succeeded fix-shout')));

    const shown = JSON.parse(dagent(['--json', 'show', runId]).stdout) as { nodes: { id: string; dependsOn: string[] }[] };
    expect(shown.nodes.map((node) => [node.id, node.dependsOn])).toEqual([['lead', []], ['fix-add', []], ['fix-shout', []], ['index', ['fix-add', 'fix-shout']]]);

    // The dashboard, folded from the same log, draws the grown plan.
    const state = applyEvents(createDashboardState(emptyRunView(runId), { attached: false }), logOf(runId));
    const screen = renderScreen(state, { width: 100, height: 30 }, { color: false, now: Date.now() }).lines.map(plainText).join('\n');
    expect(screen).toContain(`dagent ${runId} · succeeded · plan v4`);
    for (const id of ['lead', 'fix-add', 'fix-shout', 'index']) expect(screen).toContain(id);
    expect(screen).toMatch(/4\/4 nodes/);
  });

  it('refuses a delegation over team.maxNodes with one line naming the limit and its key; the lead goes on with what it has', () => {
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ team: { maxNodes: 2 } }));
    const ran = team(script());
    const runId = runIdOf(ran.stdout);
    const refusal = leadResults(runId).find((content) => content.startsWith('delegate index'));
    expect(refusal).toBe('delegate index: refused by team.maxNodes (2): this run already has 2 delegated nodes; finish with them, or raise team.maxNodes in the config');
    const answers = logOf(runId, 'delegation/answered').map((event) => (event.payload as { nodeId: string; outcome: string }).outcome);
    expect(answers).toEqual(['added', 'added', 'refused']);
    // Awaiting the refused node is answered at once, not waited for.
    expect(leadResults(runId)).toContain('error: not delegated in this run: index (a refused delegation adds no node); await only the ids delegate answered with');
    // Only three nodes: the refused one never entered a plan version.
    expect(ran.stdout).toMatch(/plan v3 · 3\/3 nodes succeeded/);
  });

  it('reports how to run the team again: its task as a team, not its grown plan as a plan', () => {
    const scriptFile = script();
    const runId = runIdOf(team(scriptFile).stdout);

    const report = JSON.parse(dagent(['report', runId, '--format', 'json']).stdout) as { reproduce: string[] };

    expect(report.reproduce.at(-1)).toContain(`team 'fix add() and shout(), export both from src/index.js'`);
    expect(report.reproduce.at(-1)).toContain(`--model scripted\\:${scriptFile}`);
    expect(report.reproduce.join('\n')).not.toMatch(/ plan (--from|')/);
  });

  it('refuses to start without a model, before it stores or announces a run', () => {
    const ran = dagent(['team', 'fix add() and shout()', '--no-dashboard']);

    expect(ran.status).toBe(2);
    expect(ran.stderr.trim()).toMatch(/^dagent: no model configured: pass --model PROVIDER:MODEL/);
    expect(ran.stdout).not.toContain('approved plan');
    expect(dagent(['status']).stdout.trim()).toBe('no runs yet: `dagent plan "<task>"` starts one');
  });

  it('resumes a killed team run without adding its delegated nodes again', async () => {
    const file = script((parsed) => {
      // The lead's check hangs: the process is killed there, after every member succeeded.
      parsed.agents['node:lead']![3] = { toolCalls: [{ id: 't1', name: 'run_command', args: { command: 'node -e "setTimeout(() => {}, 60000)"' } }] };
    });
    const cli = spawnCli(['team', 'fix add() and shout()', '-m', `scripted:${file}`, '--approval', 'auto', '--no-dashboard'], workspace, { env: { HOME: join(temp.dir, 'home') } });
    const database = join(workspace, '.dagent', 'dagent.db');
    let runId: string | undefined;
    for (let waited = 0; runId === undefined && waited < 60_000 && !cli.hasExited(); waited += 50) {
      await sleep(50);
      if (!existsSync(database)) continue;
      const db = new BetterSqlite3(database, { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare("select run_id from events where type = 'command/started' and node_id = 'lead'").get() as { run_id: string } | undefined;
        runId = row?.run_id;
      } catch {
        // The schema is not there yet.
      } finally {
        db.close();
      }
    }
    expect(runId, 'the lead never started its command').toBeDefined();
    cli.child.kill('SIGKILL');
    await cli.exited;
    const amendedBefore = logOf(runId!, 'plan/amended').length;
    expect(amendedBefore).toBe(3);

    const resumed = dagent(['resume', runId!, '--approval', 'auto', '--no-dashboard', '-m', `scripted:${file}`]);
    expect(resumed.status, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/succeeded · plan v4 · 4\/4 nodes succeeded/);
    expect(logOf(runId!, 'plan/amended')).toHaveLength(3);
    expect(logOf(runId!, 'work/delegated')).toHaveLength(3);
    // The members ran once each; only the lead went on.
    const started = logOf(runId!, 'node/started').map((event) => event.nodeId);
    expect(started.filter((id) => id !== 'lead')).toEqual(expect.arrayContaining(['fix-add', 'fix-shout', 'index']));
    expect(started.filter((id) => id !== 'lead')).toHaveLength(3);
    expect(testsPass()).toBe(true);
  });
});

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';

/**
 * A node in its own worktree (the default in a git repository) asks the symbol tools about code it
 * has just written there: they answer from its workspace, not from the user's working copy, which
 * does not have that code until the node's change is merged.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;

const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd: workspace, encoding: 'utf8' }).trim();
const cli = (...args: string[]) => runCli(args, { cwd: workspace, env: { HOME: join(temp.dir, 'home'), PATH: process.env.PATH } });

beforeAll(() => {
  temp = tempDir('dagent-node-symbols-');
  workspace = join(temp.dir, 'repo');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  mkdirSync(join(temp.dir, 'home'));
  writeFileSync(join(workspace, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', target: 'es2022' }, include: ['src'] }));
  writeFileSync(join(workspace, 'src', 'total.ts'), 'export function total(amounts: number[]): number {\n  return amounts.reduce((sum, amount) => sum + amount, 0);\n}\n');
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'initial');
  mkdirSync(join(workspace, '.dagent'));
  writeFileSync(join(workspace, '.dagent', '.gitignore'), '*\n');
  writeFileSync(
    join(workspace, '.dagent', 'script.json'),
    JSON.stringify({
      agents: {
        'node:add-average': [
          { toolCalls: [{ name: 'write_file', args: { path: 'src/average.ts', content: "import { total } from './total.js';\n\nexport function averageOf(amounts: number[]): number {\n  return total(amounts) / amounts.length;\n}\n" } }] },
          { toolCalls: [{ name: 'workspace_symbols', args: { query: 'averageOf' } }, { name: 'find_references', args: { path: 'src/total.ts', symbol: 'total' } }] },
          { text: 'Added averageOf.' },
        ],
      },
    }),
  );
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Add an average', nodes: [{ id: 'add-average', kind: 'edit', title: 'Add averageOf', instructions: 'Add averageOf in src/average.ts.', reads: [], writes: ['src/average.ts'], dependsOn: [] }] }));
});

afterAll(() => temp?.cleanup());

describe('symbol tools in a node’s own workspace', () => {
  it('find the code the node wrote in its worktree', async () => {
    const ran = await cli('--approval', 'auto', 'plan', '--from', 'plan.json', '-m', `scripted:${join(workspace, '.dagent', 'script.json')}`, '--yes', '--no-dashboard');
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    const runId = /run (r-[0-9a-z]+) succeeded/.exec(ran.stdout)?.[1];
    expect(runId, ran.stdout).toBeDefined();
    expect(git('branch', '--list', `dagent/${runId}`)).toContain(`dagent/${runId}`);

    const logged = await cli('log', runId!, '--node', 'add-average', '--type', 'tool/result', '--json');
    const results = logged.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { payload: { name?: string; content?: string; output?: string } });
    const text = (name: string): string => JSON.stringify(results.find((event) => JSON.stringify(event.payload).includes(`"${name}"`))?.payload ?? {});
    expect(text('workspace_symbols')).toContain('src/average.ts:3');
    expect(text('find_references')).toContain('src/average.ts:4');
  }, 120_000);
});

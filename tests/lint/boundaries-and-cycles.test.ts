import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ESLint, Linter } from 'eslint';
import { describe, expect, it } from 'vitest';

// `npm run lint` must fail on a broken boundary or an import cycle: both checks run here on a
// miniature repository (tests/fixtures/boundaries) that breaks the rules on purpose.
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixture = join(repo, 'tests', 'fixtures', 'boundaries');

interface ProjectLintConfig {
  readonly ENGINE_FACES: readonly string[];
  boundaryConfig(root: string, engineFaces?: readonly string[]): Linter.Config[];
}

async function boundaryFindings(engineFaces?: readonly string[]): Promise<string[]> {
  const config = (await import(pathToFileURL(join(repo, 'eslint.config.js')).href)) as ProjectLintConfig;
  const { ESLint: Eslint } = await import('eslint');
  const eslint: ESLint = new Eslint({ cwd: fixture, overrideConfigFile: true, overrideConfig: config.boundaryConfig(fixture, engineFaces ?? config.ENGINE_FACES) });
  const results = await eslint.lintFiles(['.']);
  return results.flatMap((result) => result.messages.map((message) => `${relative(fixture, result.filePath)}:${message.line} ${message.message}`));
}

describe('folder boundaries (eslint.config.js)', () => {
  it('reports the engine importing tools/, deep imports into the engine and into planners/, and nothing else', async () => {
    const findings = await boundaryFindings();

    expect(findings).toHaveLength(4);
    expect(findings).toContainEqual(expect.stringMatching(/^engine\/leak\.ts:2 .*"\.\.\/tools\/index\.js".*engine\/ imports none of cli\/, tools\//));
    expect(findings).toContainEqual(expect.stringMatching(/^cli\/wire\.ts:2 .*"\.\.\/engine\/db\/open-store\.js".*only through its public faces \(engine\/index\.ts/));
    expect(findings).toContainEqual(expect.stringMatching(/^cli\/wire\.ts:3 .*"\.\.\/engine\/status-face\.js"/));
    expect(findings).toContainEqual(expect.stringMatching(/^dashboard\/screen\.ts:2 .*"\.\.\/planners\/plan-a\.js".*only through planners\/index\.ts/));
  });

  it('lets other folders import a narrow engine face once it is listed among the faces', async () => {
    const findings = await boundaryFindings(['engine/index.ts', 'engine/status-face.ts']);

    expect(findings.filter((finding) => finding.startsWith('cli/wire.ts:3'))).toEqual([]);
    expect(findings.filter((finding) => finding.startsWith('cli/wire.ts:2'))).toHaveLength(1);
  });
});

describe('import cycles (npm run lint:cycles)', () => {
  it('fails on a circle of type-only imports and names its files', () => {
    const script = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['lint:cycles'];
    expect(script).toBeDefined();

    const check = spawnSync('sh', ['-c', script!], {
      cwd: fixture,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(repo, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1', FORCE_COLOR: '0' },
    });

    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(/planners\/plan-(a|b)\.ts -> planners\/plan-(a|b)\.ts/);
  });
});

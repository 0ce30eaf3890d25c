import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// No import cycles between folders, at any depth (docs/contributing.md): `npm run lint:cycles` finds circles
// of files; two folders can still lean on each other through files that form no circle, and a folder
// can lean on its own subfolder that leans back on it. `npm run lint:folders` (.ci/folder-cycles.mjs)
// refuses both.
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const fixture = join(repo, 'tests', 'fixtures', 'boundaries');
const checker = join(repo, '.ci', 'folder-cycles.mjs');

interface FolderCycle {
  readonly folders: string[];
  readonly edges: string[];
}

async function folderCycles(root: string): Promise<FolderCycle[]> {
  const module = (await import(pathToFileURL(checker).href)) as { folderCycles(root: string): Promise<FolderCycle[]> };
  return module.folderCycles(root);
}

describe('folder cycles (npm run lint:folders)', () => {
  it('finds none in this repository, at any depth', async () => {
    expect(await folderCycles(repo)).toEqual([]);
  });

  it('names two top-level folders that import each other, and a folder and its subfolder that do', async () => {
    const cycles = await folderCycles(fixture);

    expect(cycles).toEqual([
      {
        folders: ['planners', 'tools'],
        edges: ['planners/planned-tool.ts → tools/index.ts', 'tools/tool-plan.ts → planners/index.ts'],
      },
      {
        folders: ['tools', 'tools/reader'],
        edges: ['tools/reader/read-path.ts → tools/tool-name.ts', 'tools/tool-list.ts → tools/reader/index.ts'],
      },
    ]);
  });

  it('is part of npm run lint, and fails with the folders and their files', () => {
    const scripts = (JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['lint']).toContain('npm run lint:folders');
    expect(scripts['lint:folders']).toBe('node .ci/folder-cycles.mjs');

    const check = spawnSync(process.execPath, [checker], { cwd: fixture, encoding: 'utf8' });

    expect(check.status).toBe(1);
    expect(check.stdout).toContain('folder cycle: tools ↔ tools/reader\n  tools/reader/read-path.ts → tools/tool-name.ts\n  tools/tool-list.ts → tools/reader/index.ts');
    expect(check.stdout).toContain('folder cycle: planners ↔ tools');
  });
});

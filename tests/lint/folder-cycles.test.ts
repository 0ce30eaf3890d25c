import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseDependencyTree } from 'dpdm';
import { describe, expect, it } from 'vitest';

// No import cycles between folders (ARCHITECTURE.md): between the top-level folders, and between the
// engine's subsystems (engine/run, engine/session, ...). `npm run lint:cycles` finds circles of files;
// two folders can still lean on each other through files that form no circle, which this finds.
const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE_GLOB = '{engine,cli,tools,planners,dashboard,migrations,bench}/**/*.ts';

/** The folder a file belongs to: an engine subsystem, the engine's root files, or a top-level folder. */
function folderOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'engine' && parts.length > 2) return `engine/${parts[1]}`;
  return parts[0]!;
}

/** The engine's public faces, as eslint.config.js lists them. */
async function engineFaces(): Promise<readonly string[]> {
  return ((await import(pathToFileURL(join(repo, 'eslint.config.js')).href)) as { ENGINE_FACES: readonly string[] }).ENGINE_FACES;
}

/** Each group of folders that import one another in a circle, with one importing file per step. */
async function folderCycles(root: string): Promise<{ folders: string[]; edges: string[] }[]> {
  const faces = new Set(await engineFaces());
  const tree = await parseDependencyTree(SOURCE_GLOB, { cwd: root, context: root, transform: false });
  const edges = new Map<string, Map<string, string>>();
  for (const [file, dependencies] of Object.entries(tree)) {
    // The engine's faces re-export its subsystems; nothing inside the engine imports them.
    if (dependencies === null || faces.has(file)) continue;
    for (const dependency of dependencies) {
      if (dependency.id === null || dependency.id.includes('node_modules')) continue;
      const from = folderOf(file);
      const to = folderOf(dependency.id);
      if (from === to) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, `${file} → ${dependency.id}`);
    }
  }
  // Tarjan's strongly connected components: every component of more than one folder is a circle.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: { folders: string[]; edges: string[] }[] = [];
  const visit = (folder: string): void => {
    index.set(folder, counter);
    low.set(folder, counter++);
    stack.push(folder);
    for (const next of edges.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(folder, Math.min(low.get(folder)!, index.get(next)!));
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== folder);
    if (component.length < 2) return;
    const inside = new Set(component);
    const steps = component.flatMap((from) => [...(edges.get(from) ?? [])].filter(([to]) => inside.has(to)).map(([, step]) => step));
    cycles.push({ folders: component.sort(), edges: steps.sort() });
  };
  for (const folder of edges.keys()) if (!index.has(folder)) visit(folder);
  return cycles;
}

describe('folder cycles', () => {
  it('finds none between the top-level folders or between the engine subsystems of this repository', async () => {
    expect(await folderCycles(repo)).toEqual([]);
  });

  it('names two folders that import each other through files that form no circle', async () => {
    const cycles = await folderCycles(join(repo, 'tests', 'fixtures', 'boundaries'));

    expect(cycles).toEqual([
      {
        folders: ['planners', 'tools'],
        edges: ['planners/planned-tool.ts → tools/index.ts', 'tools/tool-plan.ts → planners/index.ts'],
      },
    ]);
  });
});

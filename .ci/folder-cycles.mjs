#!/usr/bin/env node
// Folder cycles at any depth (`npm run lint:folders`): two folders must not import each other, even
// through files that form no circle — neither two top-level folders, nor two engine subsystems, nor
// a folder and its own subfolder (tools/ and tools/workspace/, cli/ and cli/commands/).
//
// Every source folder is seen at each depth: at depth 1 `tools/workspace/workspace-guard.ts` belongs to
// `tools`, at depth 2 to `tools/workspace`, while `tools/run-command.ts` belongs to `tools` at every
// depth. A circle between the folders of one depth is refused; it is named at the shallowest depth it shows. A folder's face (its index.ts, or an
// engine face listed in eslint.config.js) stands above the folder: what it re-exports from inside its
// own folder is no import of that folder's files; what it imports from outside counts as usual.
import { dirname, join, posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseDependencyTree } from 'dpdm';

export const SOURCE_GLOB = '{engine,cli,tools,planners,dashboard,migrations,bench}/**/*.ts';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The engine's public faces, as eslint.config.js lists them. */
async function engineFaces() {
  return (await import(pathToFileURL(join(repo, 'eslint.config.js')).href)).ENGINE_FACES;
}

/** The folder of `file` seen at `depth` (a file in a shallower folder stays in its own folder). */
function folderAt(file, depth) {
  return posix.dirname(file).split('/').slice(0, depth).join('/');
}

function isInside(file, folder) {
  return file.startsWith(`${folder}/`);
}

/**
 * Each group of folders that import one another in a circle, at the shallowest depth it shows, with one
 * importing file per step: `[{ folders: ['tools', 'tools/workspace'], edges: ['a.ts → b.ts', …] }]`.
 */
export async function folderCycles(root, faces) {
  const faceSet = new Set(faces ?? (await engineFaces()));
  const tree = await parseDependencyTree(SOURCE_GLOB, { cwd: root, context: root, transform: false });
  const imports = [];
  for (const [file, dependencies] of Object.entries(tree)) {
    if (dependencies === null) continue;
    const face = faceSet.has(file) || posix.basename(file) === 'index.ts';
    for (const dependency of dependencies) {
      if (dependency.id === null || dependency.id.includes('node_modules')) continue;
      if (face && isInside(dependency.id, posix.dirname(file))) continue;
      imports.push([file, dependency.id]);
    }
  }
  const deepest = Math.max(0, ...imports.flat().map((file) => posix.dirname(file).split('/').length));
  const cycles = [];
  const seen = new Set();
  for (let depth = 1; depth <= deepest; depth++) {
    const edges = new Map();
    for (const [file, dependency] of imports) {
      const from = folderAt(file, depth);
      const to = folderAt(dependency, depth);
      // A circle that leaves the folder of depth - 1 was already found at a shallower depth.
      if (from === to || folderAt(file, depth - 1) !== folderAt(dependency, depth - 1)) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${file} → ${dependency}`);
    }
    for (const component of stronglyConnected(edges)) {
      const folders = component.sort();
      const key = folders.join('\n');
      if (seen.has(key)) continue;
      seen.add(key);
      const inside = new Set(folders);
      const steps = folders.flatMap((from) => [...(edges.get(from) ?? [])].filter(([to]) => inside.has(to)).map(([, step]) => step));
      cycles.push({ folders, edges: steps.sort() });
    }
  }
  return cycles;
}

/** Tarjan's strongly connected components of more than one folder. */
function stronglyConnected(edges) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (folder) => {
    index.set(folder, counter);
    low.set(folder, counter++);
    stack.push(folder);
    onStack.add(folder);
    for (const next of edges.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder), low.get(next)));
      } else if (onStack.has(next)) low.set(folder, Math.min(low.get(folder), index.get(next)));
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) components.push(component);
  };
  for (const folder of edges.keys()) if (!index.has(folder)) visit(folder);
  return components;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const cycles = await folderCycles(process.cwd());
  if (cycles.length === 0) {
    console.log('folder cycles: none');
  } else {
    for (const cycle of cycles) {
      console.log(`folder cycle: ${cycle.folders.join(' ↔ ')}`);
      for (const edge of cycle.edges) console.log(`  ${edge}`);
    }
    console.log(`${cycles.length} folder cycle(s): move what the inner folder needs into it or into a sibling folder`);
    process.exitCode = 1;
  }
}

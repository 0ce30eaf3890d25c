// ESLint: the folder boundaries of ARCHITECTURE.md, promises that are never dropped, and type-only imports.
// Import cycles (type-only ones included) are checked by `npm run lint:cycles` (dpdm), not here; cycles
// between folders, at any depth, by `npm run lint:folders` (.ci/folder-cycles.mjs).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * The engine's public faces: the only engine/ files that other top-level folders may import.
 * A narrow face for one concern (say, engine/<concern>-face.ts) is added here.
 */
export const ENGINE_FACES = ['engine/index.ts', 'engine/read-face.ts'];

/** Folders that are libraries with one public face (their index.ts), besides the engine. */
const FACED = ['tools', 'planners', 'dashboard', 'migrations'];
/** Every top-level source folder the boundaries apply to (tests/ imports internals by path). */
const SOURCE = ['engine', 'tools', 'planners', 'dashboard', 'migrations', 'cli', 'bench'];

/** The boundary zones, resolved against `root` (a repository laid out as ARCHITECTURE.md says). */
export function boundaryZones(root, engineFaces = ENGINE_FACES) {
  const zones = [
    {
      target: './engine',
      from: ['./cli', './tools', './planners', './dashboard', './bench', './tests'],
      message: 'engine/ imports none of cli/, tools/, planners/, dashboard/: declare the interface it needs and let cli/ hand it in.',
    },
    ...['tools', 'planners', 'dashboard', 'migrations'].map((folder) => ({
      target: `./${folder}`,
      from: ['./cli', './bench', './tests'],
      message: `${folder}/ never imports cli/ (the composition root), bench/ or tests/.`,
    })),
    {
      target: SOURCE.filter((folder) => folder !== 'engine').map((folder) => `./${folder}`),
      from: './engine',
      except: engineFaces.map((face) => path.relative('engine', face)),
      message: `other folders import the engine only through its public faces (${engineFaces.join(', ')}, listed in eslint.config.js).`,
    },
    ...FACED.map((folder) => ({
      target: SOURCE.filter((other) => other !== folder).map((other) => `./${other}`),
      from: `./${folder}`,
      except: ['./index.ts'],
      message: `other folders import ${folder}/ only through ${folder}/index.ts.`,
    })),
  ];
  return { basePath: root, zones };
}

/** The boundary rule alone, for any root: what a fixture test runs to see a violation reported. */
export function boundaryConfig(root, engineFaces = ENGINE_FACES) {
  return [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser, sourceType: 'module' },
      plugins: { 'import-x': importX },
      settings: {
        'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
      },
      rules: { 'import-x/no-restricted-paths': ['error', boundaryZones(root, engineFaces)] },
    },
  ];
}

const root = path.dirname(fileURLToPath(import.meta.url));

export default [
  // examples/ is the demo's sample repository, not dagent's code; tests/fixtures/ holds sample repositories.
  { ignores: ['dist/**', 'node_modules/**', 'examples/**', 'tests/fixtures/**', 'vitest.config.ts', '**/*.js'] },
  ...boundaryConfig(root),
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Sizes a reader can hold: no source file over 400 lines, no function over 80 (bench/ and tests/ aside).
    files: ['{engine,cli,tools,planners,dashboard,migrations}/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: false }],
      'max-lines-per-function': ['error', { max: 80 }],
    },
  },
];

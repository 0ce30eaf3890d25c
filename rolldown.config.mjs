// Bundles the compiled CLI (dist/cli/main.js, the output of tsc) into dist/cli-bundle/, which
// bin/dagent.js runs. Node's ESM loader pays a few hundred microseconds per file; kysely alone is
// 263 files and zod 95, so a command that only reads the store (`status`, `log`, `show`) spent most
// of its start-up resolving and reading modules. Each command is still loaded on demand: every
// dynamic import becomes its own chunk.
//
// The bundle is CommonJS (`.cjs` chunks) because Node 20 can give a V8 code cache only to a script
// it compiles through node:vm, not to an ECMAScript module: cli/load-bundle.ts loads the chunks that
// way (see there). dagent's own modules, the packages below and every package that cannot be
// required (ECMAScript modules only, such as execa and p-queue) are bundled; every other package is
// required or imported from node_modules as before (native and CommonJS modules, and those that
// locate files beside themselves). A bundled module's `import.meta.url` is pointed back at its
// compiled file in dist/, so files found beside a module (tool descriptions, prompts, worker
// scripts) are found as before.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'rolldown';

const ROOT = dirname(fileURLToPath(import.meta.url));
const DIST = resolve(ROOT, 'dist');
const OUT = resolve(DIST, 'cli-bundle');
const BUNDLED_PACKAGES = new Set([
  'kysely',
  'zod',
  'diff',
  // the plan's graph and globs (show, plan, run)
  'graphology', 'graphology-dag', 'graphology-utils', 'mnemonist', 'obliterator', 'picomatch', 'tinyglobby', 'fdir',
  // yargs and what it imports
  'yargs', 'yargs-parser', 'cliui', 'y18n', 'escalade', 'get-caller-file', 'string-width', 'strip-ansi', 'wrap-ansi', 'ansi-regex', 'ansi-styles', 'emoji-regex', 'get-east-asian-width',
]);

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A package `require` cannot load on Node 20: it has no CommonJS entry, or its entry is an ECMAScript module. */
function esmOnly(id, importer) {
  let file;
  try {
    file = createRequire(importer ?? join(DIST, 'cli', 'main.js')).resolve(id);
  } catch {
    return true;
  }
  if (file.endsWith('.mjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    return manifest.type === 'module';
  }
  return false;
}

export default defineConfig({
  input: { main: resolve(DIST, 'cli/main.js') },
  platform: 'node',
  external: (id, importer) => {
    if (id.startsWith('node:')) return true;
    if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
    return !BUNDLED_PACKAGES.has(packageName(id)) && !esmOnly(id, importer);
  },
  plugins: [
    {
      // cli/load-bundle.ts compiles the chunks with a code cache, and on Node 20 a script that comes
      // from cached data cannot run `import()`: every dynamic import must have become a require
      // (dynamicImportInCjs below). A method named `import` (graphology's `import(data, merge) {…}`)
      // is not one.
      name: 'no-dynamic-import-left',
      renderChunk(code, chunk) {
        for (const match of code.matchAll(/(?<![\w$.#])import\s*\(/g)) {
          if (/^import\s*\([^()]*\)\s*\{/.test(code.slice(match.index))) continue;
          this.error(`${chunk.fileName} still has a dynamic import(): ${code.slice(match.index, match.index + 80)}`);
        }
        return null;
      },
    },
    {
      // yargs renders the help text of every command it runs (to keep it for showHelp), and
      // string-width 7 builds emoji-regex's large pattern once per character measured: tens of
      // milliseconds on every `status`. Printable ASCII is one column per character, so that
      // case is answered at once and everything else still goes to string-width.
      name: 'string-width-ascii-fast-path',
      async resolveId(source, importer, options) {
        if (source !== 'string-width' || importer === undefined || importer.startsWith('\0')) return null;
        const real = await this.resolve(source, importer, { ...options, skipSelf: true });
        return real === null ? null : `\0string-width-ascii:${real.id}`;
      },
      load(id) {
        if (!id.startsWith('\0string-width-ascii:')) return null;
        const real = id.slice('\0string-width-ascii:'.length);
        return [
          `import stringWidth from ${JSON.stringify(real)};`,
          'const PRINTABLE_ASCII = /^[\\x20-\\x7e]*$/;',
          'export default function asciiFastStringWidth(text, options) {',
          "  return typeof text === 'string' && PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text, options);",
          '}',
        ].join('\n');
      },
    },
    {
      name: 'import-meta-url-of-the-compiled-file',
      transform(code, id) {
        if (!code.includes('import.meta.')) return null;
        const fromBundle = relative(OUT, id).split(sep).join('/');
        // (yargs resolves a config's `extends` with import.meta.resolve, which CommonJS spells require.resolve)
        const rewritten = code.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`).replaceAll('import.meta.resolve(', 'require.resolve(');
        return { code: rewritten, map: null };
      },
    },
  ],
  // dagent's own modules do nothing when imported but define things (no module is imported for
  // its side effects), so a chunk keeps only the modules whose exports are used.
  treeshake: { moduleSideEffects: (id, external) => external || !id.startsWith(DIST + sep) },
  output: { dir: OUT, format: 'cjs', dynamicImportInCjs: false, entryFileNames: '[name].cjs', chunkFileNames: '[name]-[hash].cjs', cleanDir: true, comments: false, minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } } },
});

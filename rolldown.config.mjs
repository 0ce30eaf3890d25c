// Bundles the compiled CLI (dist/cli/main.js, the output of tsc) into dist/cli-bundle/, which
// bin/dagent.js runs. Node's ESM loader pays a few hundred microseconds per file; kysely alone is
// 263 files and zod 95, so a command that only reads the store (`status`, `log`, `show`) spent most
// of its start-up resolving and reading modules. Each command is still loaded on demand: every
// dynamic import becomes its own chunk.
//
// Only dagent's own modules and the pure-ESM packages below are bundled; every other package is
// imported from node_modules as before (native and CommonJS modules, and those that locate files
// beside themselves). A bundled module's `import.meta.url` is pointed back at its compiled file in
// dist/, so files found beside a module (tool descriptions, prompts, worker scripts) are found as before.
import { dirname, relative, resolve, sep } from 'node:path';
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

export default defineConfig({
  input: { main: resolve(DIST, 'cli/main.js') },
  platform: 'node',
  external: (id) => {
    if (id.startsWith('node:')) return true;
    if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
    return !BUNDLED_PACKAGES.has(packageName(id));
  },
  plugins: [
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
        if (!code.includes('import.meta.url')) return null;
        const fromBundle = relative(OUT, id).split(sep).join('/');
        return { code: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`), map: null };
      },
    },
  ],
  // dagent's own modules do nothing when imported but define things (no module is imported for
  // its side effects), so a chunk keeps only the modules whose exports are used.
  treeshake: { moduleSideEffects: (id, external) => external || !id.startsWith(DIST + sep) },
  output: { dir: OUT, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js', cleanDir: true, comments: false, minify: { compress: false, mangle: false, codegen: { removeWhitespace: true } } },
});

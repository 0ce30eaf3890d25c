import { createHash } from 'node:crypto';
import { accessSync, constants as fsConstants, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';
import { CodeCacheSeal } from './code-cache-seal.js';

/**
 * Loads the CommonJS bundle of the CLI (dist/cli-bundle/, built by rolldown.config.mjs) with a V8
 * code cache, as Node 22's module.enableCompileCache does for every module (Node 20 has none).
 * Parsing and compiling the bundle's JavaScript is most of what `status`, `log` or `show` spend
 * before they read the store; with the cache V8 skips both, for the functions that ran last time too.
 *
 * Each chunk the command loads is compiled with the cache data found for it; a chunk that had none,
 * or whose data V8 refused (another Node or V8 flags), gets new data written when the process exits,
 * after the command ran. The data's file name carries a hash of the chunk's text and the Node version
 * and architecture, so changed code never meets old data. Data lives in node_modules/.cache/dagent/
 * of the package when that folder is writable (a clone), else in the user's cache folder
 * ($XDG_CACHE_HOME or ~/.cache, under dagent/code-cache/); one folder per copy of the bundle.
 * DAGENT_CODE_CACHE=off compiles without a cache; DAGENT_CODE_CACHE=DIR keeps the data in DIR.
 * Whatever goes wrong with the cache (no folder, unreadable or unwritable data) only costs speed.
 *
 * Every file is sealed with a key only dagent can read (code-cache-seal.ts): a file whose seal does
 * not match (written by a command, or damaged) is discarded with a one-line notice and compiled
 * again. The package's own cache folder is also read-only to sandboxed commands when the package
 * lies inside their workspace.
 *
 * A chunk must not contain `import()`: Node 20 loses a script's dynamic-import callback when the
 * script comes from cached data. The build turns every dynamic import into a `require` and refuses
 * a chunk that still has one (rolldown.config.mjs).
 */
export function loadBundle(entry: string): Record<string, unknown> {
  const bundleDir = dirname(entry);
  const folder = cacheFolder(bundleDir);
  const seal = folder === undefined ? undefined : CodeCacheSeal.open();
  const loader = new BundleLoader(bundleDir, seal === undefined ? undefined : folder, seal);
  return loader.load(entry);
}

interface LoadedModule {
  exports: Record<string, unknown>;
}

interface Pending {
  readonly script: Script;
  readonly file: string;
}

type ModuleFunction = (exports: unknown, require: NodeJS.Require, module: LoadedModule, filename: string, dirname: string) => void;

/** Part of every cache file's name: V8's data depends on them (`sealed` sets the format apart from the unsealed files of earlier versions). */
const CACHE_TAG = `${process.version}-${process.arch}-sealed`;

class BundleLoader {
  private readonly modules = new Map<string, LoadedModule>();
  private readonly pending: Pending[] = [];
  private readonly current = new Set<string>();

  constructor(
    private readonly bundleDir: string,
    private readonly cacheDir: string | undefined,
    private readonly seal: CodeCacheSeal | undefined,
  ) {
    if (cacheDir !== undefined) process.once('exit', () => this.writeCache());
  }

  load(file: string): Record<string, unknown> {
    const known = this.modules.get(file);
    if (known !== undefined) return known.exports;
    const source = readFileSync(file, 'utf8');
    const cacheFile = this.cacheDir === undefined || this.seal === undefined ? undefined : join(this.cacheDir, `${basename(file)}.${sourceKey(source)}.${this.seal.id}.bin`);
    if (cacheFile !== undefined) this.current.add(basename(cacheFile));
    const cachedData = cacheFile === undefined ? undefined : this.readSealed(cacheFile);
    // `(0, function …)` and not `(function …)`: V8 compiles a parenthesised function at once, in full
    // (a guess that it is called right away), where it should only pre-parse the inner functions.
    const script = new Script(`(0, function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      ...(cachedData === undefined ? {} : { cachedData }),
    });
    if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)) this.pending.push({ script, file: cacheFile });
    const module: LoadedModule = { exports: {} };
    this.modules.set(file, module);
    const run = script.runInThisContext() as ModuleFunction;
    run.call(module.exports, module.exports, this.requireFrom(file), module, file, dirname(file));
    return module.exports;
  }

  /** The data of a cache file whose seal holds; one that fails is removed, with a notice. */
  private readSealed(file: string): Buffer | undefined {
    const sealed = readIfPresent(file);
    if (sealed === undefined || this.seal === undefined) return undefined;
    const opened = this.seal.unseal(file, sealed);
    if ('data' in opened) return opened.data;
    rmSync(file, { force: true });
    process.stderr.write(`dagent: discarded the code cache file ${file}: its seal does not match (damaged, or not written by dagent); compiling afresh\n`);
    return undefined;
  }

  /** A chunk's require: the bundle's own chunks through this loader, everything else through Node. */
  private requireFrom(file: string): NodeJS.Require {
    const nodeRequire = createRequire(file);
    const requireHere = ((id: string): unknown => (id.startsWith('./') && id.endsWith('.cjs') ? this.load(resolve(this.bundleDir, id)) : nodeRequire(id))) as NodeJS.Require;
    return Object.assign(requireHere, { resolve: nodeRequire.resolve, cache: nodeRequire.cache, extensions: nodeRequire.extensions, main: nodeRequire.main });
  }

  /** Writes the data of the chunks that had none, then drops the data of chunks this bundle no longer has. */
  private writeCache(): void {
    if (this.pending.length === 0 || this.cacheDir === undefined || this.seal === undefined) return;
    try {
      mkdirSync(this.cacheDir, { recursive: true });
      for (const { script, file } of this.pending) {
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, this.seal.seal(file, script.createCachedData()), { mode: 0o600 });
        renameSync(temporary, file);
      }
      const chunks = new Set(readdirSync(this.bundleDir));
      for (const name of readdirSync(this.cacheDir)) {
        const chunk = name.slice(0, name.indexOf('.cjs.') + '.cjs'.length);
        const stale = !chunks.has(chunk) || (!this.current.has(name) && [...this.current].some((kept) => kept.startsWith(`${chunk}.`)));
        if (stale && name.endsWith('.bin')) rmSync(join(this.cacheDir, name), { force: true });
      }
    } catch {
      // no cache this time: the next start compiles again
    }
  }
}

function sourceKey(source: string): string {
  return createHash('sha256').update(CACHE_TAG).update('\0').update(source).digest('base64url').slice(0, 24);
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

function cacheFolder(bundleDir: string): string | undefined {
  const setting = process.env['DAGENT_CODE_CACHE'];
  if (setting === 'off' || setting === '0') return undefined;
  if (setting !== undefined && setting !== '') return resolve(setting);
  // One folder per copy of the bundle: copies that share a cache folder (worktrees sharing
  // node_modules) would otherwise drop each other's data.
  const copy = createHash('sha256').update(bundleDir).digest('base64url').slice(0, 12);
  const modules = join(bundleDir, '..', '..', 'node_modules');
  try {
    accessSync(modules, fsConstants.W_OK);
    return join(modules, '.cache', 'dagent', 'code-cache', copy);
  } catch {
    const home = process.env['XDG_CACHE_HOME'] ?? join(homedir(), '.cache');
    return join(home, 'dagent', 'code-cache', copy);
  }
}

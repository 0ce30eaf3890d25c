import { accessSync, constants, existsSync, lstatSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { linkedFolderTargets } from '../../engine/index.js';
import { startAllowListProxy, type AllowListProxy } from './allow-list-proxy.js';
import { bubblewrapArgs } from './bubblewrap-args.js';
import { SECCOMP_FD, confinementOf, findBubblewrapLevel, type BubblewrapLevel } from './bubblewrap-confinement.js';
import { CREDENTIAL_PATHS } from './credential-paths.js';
import { SANDBOX_PROXY_PORT, SANDBOX_PROXY_SOCKET, type HiddenPath, type SandboxNetwork, type SandboxPolicy } from './sandbox-policy.js';
import { allHomes, holdPlaceholders, workspaceProtection } from './protected-paths.js';
import { seatbeltProfile } from './seatbelt-profile.js';
import { seccompProgram } from './seccomp-filter.js';
import { worktreeGitFolders } from './worktree-git-folders.js';

export type SandboxKind = 'bubblewrap' | 'seatbelt';

/** Whether this machine can confine commands, and if not, what to do about it. */
export type SandboxStatus =
  | { readonly available: true; readonly kind: SandboxKind; readonly program: string; readonly bubblewrap?: BubblewrapLevel }
  | { readonly available: false; readonly reason: string; readonly fix: string };

export interface CommandSandboxOptions {
  /** Home folders whose credential stores are hidden besides `/root` and every folder under `/home` (the user's, and `HOME` when it differs). */
  readonly homes: readonly string[];
  /** Hosts commands may reach through the proxy; none by default (no network). */
  readonly allowHosts?: readonly string[];
  /** Ports the proxy lets commands reach on every allowed host (default 443 and 80). */
  readonly allowPorts?: readonly number[];
  /** Absolute paths outside the workspace made visible read-only (`sandbox.readPaths`). */
  readonly readPaths?: readonly string[];
  /** `bwrap` to use instead of the one on PATH (a path that does not exist simulates a machine without it). */
  readonly bwrapPath?: string;
  readonly platform?: NodeJS.Platform;
  readonly searchPath?: string;
}

/** One command, ready to spawn: the program, its arguments and environment, and what to remove afterwards. */
export interface SandboxedCommand {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Data the program reads from an extra file descriptor (bubblewrap's seccomp program). */
  readonly extraInput?: { readonly fd: number; readonly data: Uint8Array };
  cleanup(): void;
}

export interface WrapInput {
  readonly workspace: string;
  readonly shell: string;
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
}

/** Where a path leads once its links are followed; itself when it does not exist (bubblewrap skips it). */
function realPathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** dagent's own folder (the one holding its package.json), from the sources or the build. */
const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

/** dagent's own code cache (cli/load-bundle.ts) when it is kept in the package: read-only where the package lies in a workspace. */
const OWN_CACHE = join(PACKAGE_ROOT, 'node_modules', '.cache', 'dagent');
/** The compiled bridge beside this module; from the TypeScript sources (tests), the build's copy. */
const BRIDGE_SCRIPT = [new URL('./proxy-bridge.js', import.meta.url), new URL('../../dist/tools/sandbox/proxy-bridge.js', import.meta.url)]
  .map((url) => fileURLToPath(url))
  .find((path) => existsSync(path)) ?? fileURLToPath(new URL('./proxy-bridge.js', import.meta.url));

/**
 * Finds the OS sandbox of this machine: `bwrap` on Linux (tried once, since a container may
 * forbid the namespaces it needs), `sandbox-exec` on macOS.
 */
export function detectSandbox(options: Pick<CommandSandboxOptions, 'bwrapPath' | 'platform' | 'searchPath'> = {}): SandboxStatus {
  const platform = options.platform ?? process.platform;
  if (platform === 'darwin') {
    return isExecutable('/usr/bin/sandbox-exec')
      ? { available: true, kind: 'seatbelt', program: '/usr/bin/sandbox-exec' }
      : { available: false, reason: '/usr/bin/sandbox-exec is missing', fix: 'sandbox-exec ships with macOS; check that /usr/bin/sandbox-exec exists' };
  }
  if (platform !== 'linux') return { available: false, reason: `no OS sandbox is supported on ${platform}`, fix: 'run dagent on Linux (bubblewrap) or macOS (sandbox-exec)' };
  const install = 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)';
  const program = options.bwrapPath ?? findOnPath('bwrap', options.searchPath ?? process.env.PATH ?? '');
  if (program === undefined || !isExecutable(program)) return { available: false, reason: `bubblewrap (bwrap) is not installed${options.bwrapPath === undefined ? '' : ` at ${options.bwrapPath}`}`, fix: install };
  const found = findBubblewrapLevel(program);
  if ('error' in found) {
    return { available: false, reason: `bubblewrap cannot create a sandbox here: ${found.error}`, fix: 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run in a container that permits them' };
  }
  return { available: true, kind: 'bubblewrap', program, bubblewrap: found.level };
}

/**
 * Confines commands with the machine's OS sandbox: writes only to the workspace (not its `.git`
 * and `.dagent`, nor a linked worktree's git folders, which it reads) and a private temp folder,
 * credential stores hidden, no network except the allow-list proxy, every process gone with the
 * command and with dagent.
 */
export class CommandSandbox {
  readonly kind: SandboxKind;
  readonly #program: string;
  readonly #level: BubblewrapLevel | undefined;
  readonly #options: CommandSandboxOptions;
  #proxy: Promise<AllowListProxy> | undefined;

  private constructor(status: Extract<SandboxStatus, { available: true }>, options: CommandSandboxOptions) {
    this.kind = status.kind;
    this.#program = status.program;
    this.#level = status.bubblewrap;
    this.#options = options;
  }

  /** The sandbox, or the status saying why there is none. */
  static open(options: CommandSandboxOptions): CommandSandbox | Extract<SandboxStatus, { available: false }> {
    const status = detectSandbox(options);
    return status.available ? new CommandSandbox(status, options) : status;
  }

  /** The sandbox program (`bwrap` or `sandbox-exec`). */
  get program(): string {
    return this.#program;
  }

  /** What confines a command beyond the mounts (bubblewrap): its user namespace, whether the seccomp filter is loaded. */
  get level(): BubblewrapLevel | undefined {
    return this.#level;
  }

  get allowHosts(): readonly string[] {
    return this.#options.allowHosts ?? [];
  }

  async wrap(input: WrapInput): Promise<SandboxedCommand> {
    const network = await this.#network();
    const hidden = hiddenPaths(allHomes(this.#options.homes));
    const { readOnly, placeholders } = workspaceProtection(input.workspace, [PACKAGE_ROOT, OWN_CACHE, process.env['DAGENT_CODE_CACHE']]);
    const gitFolders = worktreeGitFolders(input.workspace);
    const proxyEnv = network.kind === 'none' ? {} : proxyEnvironment(network.kind === 'proxy-socket' ? SANDBOX_PROXY_PORT : network.port);
    if (this.kind === 'bubblewrap') {
      const emptyFolder = placeholders.length === 0 ? undefined : privateEmptyFolder();
      // A node workspace's linked folders (node_modules, build caches) stay visible, read-only, under the private /tmp too.
      const visible = [PACKAGE_ROOT, dirname(process.execPath), ...linkedFolderTargets(input.workspace)];
      const policy: SandboxPolicy = { workspace: input.workspace, readOnly, placeholders, gitFolders, ...(emptyFolder === undefined ? {} : { emptyFolder }), hidden, visible, readPaths: (this.#options.readPaths ?? []).map(realPathOrSelf), tempDir: '/tmp', network };
      const inner = network.kind === 'proxy-socket'
        ? [process.execPath, BRIDGE_SCRIPT, SANDBOX_PROXY_SOCKET, String(SANDBOX_PROXY_PORT), '--', input.shell, '-c', input.command]
        : [input.shell, '-c', input.command];
      const level = this.#level ?? { noNestedUserNamespaces: false, seccomp: false };
      const seccomp = level.seccomp ? seccompProgram() : undefined;
      const args = [...bubblewrapArgs(policy, confinementOf(level, SECCOMP_FD)), '--', ...inner];
      const env = { ...input.env, ...proxyEnv, TMPDIR: '/tmp' };
      return { file: this.#program, args, env, ...(seccomp === undefined ? {} : { extraInput: { fd: SECCOMP_FD, data: seccomp } }), cleanup: holdPlaceholders(placeholders) };
    }
    const tempDir = realpathSync(mkdtempSync(join(tmpdir(), 'dagent-cmd-')));
    const profileFile = join(tempDir, 'sandbox.sb');
    const policy: SandboxPolicy = { workspace: input.workspace, readOnly, placeholders, gitFolders, hidden, tempDir, network };
    writeFileSync(profileFile, seatbeltProfile(policy));
    return {
      file: this.#program,
      args: ['-f', profileFile, input.shell, '-c', input.command],
      env: { ...input.env, ...proxyEnv, TMPDIR: tempDir },
      cleanup: () => rmSync(tempDir, { recursive: true, force: true }),
    };
  }

  /** Stops the allow-list proxy, if one was started. */
  async close(): Promise<void> {
    const proxy = this.#proxy;
    this.#proxy = undefined;
    if (proxy !== undefined) await (await proxy).close();
  }

  async #network(): Promise<SandboxNetwork> {
    if (this.allowHosts.length === 0) return { kind: 'none' };
    this.#proxy ??= startAllowListProxy({
      allowHosts: this.allowHosts,
      ...(this.#options.allowPorts === undefined ? {} : { allowPorts: this.#options.allowPorts }),
      listen: this.kind === 'bubblewrap' ? 'socket' : 'port',
    });
    const { endpoint } = await this.#proxy;
    return endpoint.kind === 'socket'
      ? { kind: 'proxy-socket', socketPath: endpoint.path, port: SANDBOX_PROXY_PORT }
      : { kind: 'proxy-port', port: endpoint.port };
  }
}

/**
 * The same command for a launcher that gives a child only stdin, stdout and stderr (an MCP client):
 * a shell opens the extra input (the seccomp program, kept in a private temporary file for this
 * process) on its descriptor, then becomes the sandbox. The file is outside every workspace and
 * under the host's /tmp, which no sandboxed command sees.
 */
export function withExtraInputFromFile(command: SandboxedCommand): SandboxedCommand {
  const extra = command.extraInput;
  if (extra === undefined) return command;
  const file = extraInputFile(extra.data);
  return {
    file: '/bin/sh',
    args: ['-c', `exec "$@" ${extra.fd}<"$0"`, file, command.file, ...command.args],
    env: command.env,
    cleanup: () => command.cleanup(),
  };
}

let emptyFolder: string | undefined;

/** An empty folder of this process under the host's /tmp (which no command sees), removed at exit. */
function privateEmptyFolder(): string {
  if (emptyFolder !== undefined && existsSync(emptyFolder)) return emptyFolder;
  const made = mkdtempSync(join(tmpdir(), 'dagent-empty-'));
  process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  emptyFolder = made;
  return made;
}

const extraInputFiles = new Map<string, string>();

function extraInputFile(data: Uint8Array): string {
  const key = Buffer.from(data).toString('base64');
  const known = extraInputFiles.get(key);
  if (known !== undefined && existsSync(known)) return known;
  const folder = mkdtempSync(join(tmpdir(), 'dagent-seccomp-'));
  const file = join(folder, 'filter.bpf');
  writeFileSync(file, data, { mode: 0o600 });
  process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  extraInputFiles.set(key, file);
  return file;
}

function proxyEnvironment(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, npm_config_proxy: url, npm_config_https_proxy: url, NO_PROXY: '', no_proxy: '' };
}

/** The credential stores that exist under the given homes. */
export function hiddenPaths(homes: readonly string[]): HiddenPath[] {
  const hidden: HiddenPath[] = [];
  for (const home of new Set(homes)) {
    for (const relative of CREDENTIAL_PATHS) {
      const path = join(home, relative);
      try {
        // Most stores are absent: asked without an exception, which costs twice the call (~30 per command).
        const stat = lstatSync(path, { throwIfNoEntry: false });
        if (stat === undefined) continue;
        // A symlinked store is hidden where the link points too: the real path is what a reader opens.
        const real = stat.isSymbolicLink() ? realpathSync(path) : path;
        const kind = lstatSync(real).isDirectory() ? 'directory' : 'file';
        hidden.push({ path, kind });
        if (real !== path) hidden.push({ path: real, kind });
      } catch {
        // unreadable, under a file, or a dangling link: nothing to hide
      }
    }
  }
  return hidden;
}

function findOnPath(name: string, searchPath: string): string | undefined {
  for (const folder of searchPath.split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

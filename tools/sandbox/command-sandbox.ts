import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, lstatSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAllowListProxy, type AllowListProxy } from './allow-list-proxy.js';
import { bubblewrapArgs } from './bubblewrap-args.js';
import { CREDENTIAL_PATHS } from './credential-paths.js';
import { SANDBOX_PROXY_PORT, SANDBOX_PROXY_SOCKET, type HiddenPath, type SandboxNetwork, type SandboxPolicy } from './sandbox-policy.js';
import { seatbeltProfile } from './seatbelt-profile.js';

export type SandboxKind = 'bubblewrap' | 'seatbelt';

/** Whether this machine can confine commands, and if not, what to do about it. */
export type SandboxStatus =
  | { readonly available: true; readonly kind: SandboxKind; readonly program: string }
  | { readonly available: false; readonly reason: string; readonly fix: string };

export interface CommandSandboxOptions {
  /** Home folders whose credential stores are hidden (the user's, and `HOME` when it differs). */
  readonly homes: readonly string[];
  /** Hosts commands may reach through the proxy; none by default (no network). */
  readonly allowHosts?: readonly string[];
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
  cleanup(): void;
}

export interface WrapInput {
  readonly workspace: string;
  readonly shell: string;
  readonly command: string;
  readonly env: Readonly<Record<string, string>>;
}

/** dagent's own folder (the one holding its package.json), from the sources or the build. */
const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

/** Folders inside the workspace no command may change: the repository and dagent's own state. */
const READ_ONLY_IN_WORKSPACE = ['.git', '.dagent'] as const;
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
  const probe = spawnSync(program, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--die-with-parent', 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) {
    const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n')[0];
    return { available: false, reason: `bubblewrap cannot create a sandbox here: ${why}`, fix: 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run in a container that permits them' };
  }
  return { available: true, kind: 'bubblewrap', program };
}

/**
 * Confines commands with the machine's OS sandbox: writes only to the workspace (not its `.git`
 * and `.dagent`) and a private temp folder, credential stores hidden, no network except the
 * allow-list proxy, every process gone with the command and with dagent.
 */
export class CommandSandbox {
  readonly kind: SandboxKind;
  readonly #program: string;
  readonly #options: CommandSandboxOptions;
  #proxy: Promise<AllowListProxy> | undefined;

  private constructor(status: Extract<SandboxStatus, { available: true }>, options: CommandSandboxOptions) {
    this.kind = status.kind;
    this.#program = status.program;
    this.#options = options;
  }

  /** The sandbox, or the status saying why there is none. */
  static open(options: CommandSandboxOptions): CommandSandbox | Extract<SandboxStatus, { available: false }> {
    const status = detectSandbox(options);
    return status.available ? new CommandSandbox(status, options) : status;
  }

  get allowHosts(): readonly string[] {
    return this.#options.allowHosts ?? [];
  }

  async wrap(input: WrapInput): Promise<SandboxedCommand> {
    const network = await this.#network();
    const hidden = hiddenPaths(this.#options.homes);
    const readOnly = READ_ONLY_IN_WORKSPACE.map((name) => join(input.workspace, name)).filter(isRealFolderOrFile);
    const proxyEnv = network.kind === 'none' ? {} : proxyEnvironment(network.kind === 'proxy-socket' ? SANDBOX_PROXY_PORT : network.port);
    if (this.kind === 'bubblewrap') {
      const policy: SandboxPolicy = { workspace: input.workspace, readOnly, hidden, visible: [PACKAGE_ROOT, dirname(process.execPath)], tempDir: '/tmp', network };
      const inner = network.kind === 'proxy-socket'
        ? [process.execPath, BRIDGE_SCRIPT, SANDBOX_PROXY_SOCKET, String(SANDBOX_PROXY_PORT), '--', input.shell, '-c', input.command]
        : [input.shell, '-c', input.command];
      return { file: this.#program, args: [...bubblewrapArgs(policy), '--', ...inner], env: { ...input.env, ...proxyEnv, TMPDIR: '/tmp' }, cleanup: () => undefined };
    }
    const tempDir = realpathSync(mkdtempSync(join(tmpdir(), 'dagent-cmd-')));
    const profileFile = join(tempDir, 'sandbox.sb');
    const policy: SandboxPolicy = { workspace: input.workspace, readOnly, hidden, tempDir, network };
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
    this.#proxy ??= startAllowListProxy({ allowHosts: this.allowHosts, listen: this.kind === 'bubblewrap' ? 'socket' : 'port' });
    const { endpoint } = await this.#proxy;
    return endpoint.kind === 'socket'
      ? { kind: 'proxy-socket', socketPath: endpoint.path, port: SANDBOX_PROXY_PORT }
      : { kind: 'proxy-port', port: endpoint.port };
  }
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
        const stat = lstatSync(path);
        // A symlinked store is hidden where the link points too: the real path is what a reader opens.
        const real = stat.isSymbolicLink() ? realpathSync(path) : path;
        const kind = lstatSync(real).isDirectory() ? 'directory' : 'file';
        hidden.push({ path, kind });
        if (real !== path) hidden.push({ path: real, kind });
      } catch {
        // absent: nothing to hide
      }
    }
  }
  return hidden;
}

function isRealFolderOrFile(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() || stat.isFile();
  } catch {
    return false;
  }
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

/** What one sandboxed command may touch; built per command from the workspace and the home folders. */
export interface SandboxPolicy {
  /** The workspace's real path: the one folder (with the private temp folder) the command may write. */
  readonly workspace: string;
  /** Existing folders or files inside the workspace mounted read-only (`.git`, `.dagent`). */
  readonly readOnly: readonly string[];
  /**
   * Paths inside the workspace that do not exist yet and no command may create (`.git`, `.dagent`):
   * an empty read-only folder is mounted there for the command's time.
   */
  readonly placeholders?: readonly string[];
  /**
   * Git folders the workspace's `.git` file leads to when it is a linked worktree (its admin folder
   * `<common>/worktrees/<name>` and the common git folder): visible, and read-only like the `.git`
   * folder of a plain repository (see worktree-git-folders.ts). Real paths.
   */
  readonly gitFolders?: readonly string[];
  /** An empty folder outside every workspace, bound read-only at each placeholder (one bind is cheaper than a tmpfs made read-only). */
  readonly emptyFolder?: string;
  /** Existing credential stores, hidden behind an empty folder or file. */
  readonly hidden: readonly HiddenPath[];
  /**
   * Folders under `/tmp` that stay visible, read-only, over the private `/tmp`: dagent's own install
   * and the Node.js it runs on, when they live there (the proxy bridge and a demo's tools run from them).
   */
  readonly visible?: readonly string[];
  /**
   * Paths outside the workspace the config makes visible read-only (`sandbox.readPaths`): a folder
   * under the private `/tmp`, or a credential store named outright. Never writable, never over the
   * workspace: they are mounted before it, and a credential store inside one stays hidden.
   */
  readonly readPaths?: readonly string[];
  /** Where the private temp folder appears (TMPDIR inside the sandbox). */
  readonly tempDir: string;
  /** No network at all, or only through the allow-list proxy. */
  readonly network: SandboxNetwork;
}

export interface HiddenPath {
  readonly path: string;
  readonly kind: 'directory' | 'file';
}

export type SandboxNetwork =
  | { readonly kind: 'none' }
  /** Linux: the proxy's Unix socket, bound into the sandbox and bridged to 127.0.0.1:port inside. */
  | { readonly kind: 'proxy-socket'; readonly socketPath: string; readonly port: number }
  /** macOS: the proxy listens on the host's loopback; the profile allows that one port. */
  | { readonly kind: 'proxy-port'; readonly port: number };

/** Where the proxy's socket appears inside a bubblewrap sandbox. */
export const SANDBOX_PROXY_SOCKET = '/tmp/.dagent-proxy.sock';
/** The loopback port the bridge listens on inside the sandbox. */
export const SANDBOX_PROXY_PORT = 3128;

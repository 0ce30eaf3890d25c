/**
 * The variables a command inherits; everything else (API keys, tokens, cloud credentials) is
 * dropped. `LC_*` and `XDG_*` pass by prefix.
 */
export const ALLOWED_ENVIRONMENT: ReadonlySet<string> = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TERM', 'COLORTERM', 'TMPDIR',
  'EDITOR', 'VISUAL', 'HOSTNAME', 'PWD', 'SHLVL', 'CI',
  'NODE_ENV', 'NODE_OPTIONS', 'NODE_PATH', 'NVM_DIR', 'NVM_BIN', 'VOLTA_HOME', 'PNPM_HOME', 'COREPACK_HOME',
  'npm_config_cache', 'npm_config_prefix', 'npm_config_nodedir', 'npm_config_registry',
  'PYENV_ROOT', 'PYTHONPATH', 'VIRTUAL_ENV', 'CONDA_PREFIX', 'PIP_INDEX_URL', 'PIP_CACHE_DIR',
  'GOPATH', 'GOROOT', 'GOCACHE', 'GOMODCACHE', 'GOFLAGS', 'GOPROXY', 'CARGO_HOME', 'RUSTUP_HOME', 'JAVA_HOME',
  'DISPLAY', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS',
]);

const ALLOWED_PREFIXES = ['LC_', 'XDG_'] as const;

/** Never interactive, never paged, no colour codes. */
export const COMMAND_ENV_OVERRIDES: Readonly<Record<string, string>> = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', NO_COLOR: '1', TERM: 'dumb' };

/**
 * Configuration git applies to every git command of a read-only command line, with the
 * precedence of `git -c`: no file-system monitor program, no hooks, no external diff program.
 * A repository's own config (planted `core.fsmonitor`) cannot run code through `git status`.
 */
export const READ_ONLY_GIT_CONFIG: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['diff.external', ''],
];

/** `GIT_CONFIG_COUNT` and its keys: the environment form of `git -c key=value …`. */
export function gitConfigEnvironment(entries: readonly (readonly [string, string])[]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(entries.length) };
  entries.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

/**
 * The environment a command runs with: only allow-listed variables from `source` (plus the
 * names in `extraAllowed`, from config), then the non-interactive overrides. Pure.
 */
export function scrubEnvironment(source: Readonly<Record<string, string | undefined>>, extraAllowed: readonly string[] = []): Record<string, string> {
  const extra = new Set(extraAllowed);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (ALLOWED_ENVIRONMENT.has(name) || extra.has(name) || ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix))) env[name] = value;
  }
  return { ...env, ...COMMAND_ENV_OVERRIDES };
}

/** The OS sandbox every command runs in: bubblewrap on Linux, sandbox-exec on macOS. */
export { CommandSandbox, detectSandbox, hiddenPaths, withExtraInputFromFile, type CommandSandboxOptions, type SandboxKind, type SandboxStatus, type SandboxedCommand, type WrapInput } from './command-sandbox.js';
export { bubblewrapArgs, type BubblewrapConfinement } from './bubblewrap-args.js';
export { DENIED_CALLS, seccompProgram } from './seccomp-filter.js';
export { allHomes, PROTECTED_IN_WORKSPACE } from './protected-paths.js';
export type { BubblewrapLevel } from './bubblewrap-confinement.js';
export { seatbeltProfile } from './seatbelt-profile.js';
export { CREDENTIAL_PATHS } from './credential-paths.js';
export { scrubEnvironment, gitConfigEnvironment, ALLOWED_ENVIRONMENT, COMMAND_ENV_OVERRIDES, READ_ONLY_GIT_CONFIG } from './command-environment.js';
export { isHostAllowed } from './host-allow-list.js';
export { startAllowListProxy, type AllowListProxy, type ProxyEndpoint } from './allow-list-proxy.js';
export { SANDBOX_PROXY_PORT, SANDBOX_PROXY_SOCKET, type HiddenPath, type SandboxNetwork, type SandboxPolicy } from './sandbox-policy.js';
export { probeSandbox, type SandboxProbe } from './sandbox-probe.js';

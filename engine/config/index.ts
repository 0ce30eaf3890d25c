export { configSchema, parseConfig, WORKSPACE_SAFE_KEYS, type DagentConfig } from './config-schema.js';
export { configFromEnv, readConfigFile, resolveConfig, WORKSPACE_CONFIG_FILE, type ConfigSources, type ResolvedConfig } from './resolve-config.js';
export { userConfigDir, userConfigPath, userDataDir, userMemoryDatabasePath } from './user-config.js';
export { configHash, isWorkspaceTrusted, trustFilePath, trustWorkspace } from './workspace-trust.js';

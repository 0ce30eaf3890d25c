/** The engine's public face: what cli/, dashboard/, planners/ and tools/ may import. */
export * from './errors.js';
export * from './db/index.js';
export * from './session/index.js';
export * from './context/index.js';
export * from './model/index.js';
export * from './agent/index.js';
export * from './plan/index.js';
export * from './scheduler/index.js';
export * from './compaction/index.js';
export * from './memory/index.js';
export * from './run/index.js';
export * from './snapshots/index.js';
export * from './dispatch/index.js';
export { readBeside } from './read-beside.js';
export { canonicalJson, contentHash } from './canonical-json.js';
export { createSecretRedactor, secretsFromEnvironment, REDACTED, MIN_SECRET_CHARS, type SecretRedactor } from './secret-redactor.js';
export * from './config/index.js';

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../errors.js';
import { userConfigDir } from './user-config.js';

/**
 * Which workspaces the user let steer dagent: `trusted-workspaces.json` in the user's dagent
 * folder (never in the repository), mapping a workspace's real path to the SHA-256 of the
 * `.dagent/config.json` the user saw. A config that changes afterwards is no longer trusted.
 */
export function trustFilePath(env: NodeJS.ProcessEnv): string | undefined {
  const dir = userConfigDir(env);
  return dir === undefined ? undefined : join(dir, 'trusted-workspaces.json');
}

export function configHash(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether the user trusted this workspace with exactly this config text. */
export function isWorkspaceTrusted(env: NodeJS.ProcessEnv, workspace: string, hash: string): boolean {
  return readTrusted(env)[canonical(workspace)] === hash;
}

/** Records the trust; returns the file it was recorded in. */
export function trustWorkspace(env: NodeJS.ProcessEnv, workspace: string, hash: string): string {
  const file = trustFilePath(env);
  if (file === undefined) throw new ConfigError('cannot record trust: neither HOME nor XDG_CONFIG_HOME is set');
  const trusted = { ...readTrusted(env), [canonical(workspace)]: hash };
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(trusted, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return file;
}

function readTrusted(env: NodeJS.ProcessEnv): Record<string, string> {
  const file = trustFilePath(env);
  if (file === undefined || !existsSync(file)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, string>) : {};
  } catch {
    throw new ConfigError(`${file}: not valid JSON; fix it or remove it (trust is then asked again)`);
  }
}

function canonical(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    return workspace;
  }
}

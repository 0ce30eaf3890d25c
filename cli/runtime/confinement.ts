import { homedir } from 'node:os';
import { detectConfinement, type CommandConfinement } from '../../tools/index.js';
import type { CliContext } from '../context/cli-context.js';

/**
 * Where commands run: the OS sandbox (with the config's network allow-list), or none with
 * `--no-sandbox` / `sandbox.enabled: false`. `DAGENT_BWRAP` names another bubblewrap binary.
 */
export function createConfinement(context: CliContext): CommandConfinement {
  if (context.config.sandbox?.enabled === false) return { kind: 'disabled' };
  const homes = [homedir(), ...(context.io.env.HOME === undefined ? [] : [context.io.env.HOME])];
  return detectConfinement({
    homes,
    ...(context.config.sandbox?.allowHosts === undefined ? {} : { allowHosts: context.config.sandbox.allowHosts }),
    ...(context.config.sandbox?.allowPorts === undefined ? {} : { allowPorts: context.config.sandbox.allowPorts }),
    ...(context.io.env.DAGENT_BWRAP === undefined ? {} : { bwrapPath: context.io.env.DAGENT_BWRAP }),
  });
}

import { fileURLToPath } from 'node:url';
import type { McpServerSpec } from '../../../tools/index.js';

const SERVER_SCRIPT = fileURLToPath(new URL('../../fixtures/mcp/test-server.mjs', import.meta.url));

/** The stdio test server of tests/fixtures/mcp, as a configured server named `name`. */
export function testServerSpec(name: string, options: { failStart?: boolean; timeoutMs?: number } = {}): McpServerSpec {
  return {
    name,
    transport: { kind: 'stdio', command: process.execPath, args: [SERVER_SCRIPT, ...(options.failStart ? ['--fail-start'] : [])], env: {} },
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
}

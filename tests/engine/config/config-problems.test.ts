import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../engine/config/config-schema.js';

/** A settings file's problems in the words of what it must be: the setting meant, what an MCP server needs, its naming rule, a limit. */

describe('the settings file, refused', () => {
  it('names the setting a misspelt one meant, what an MCP server entry needs, the rule its name broke and a limit', () => {
    const raw = { mcpServer: {}, small_model: 'deepseek:deepseek-chat', mcpServers: { b: {}, 'bad name!': { command: 'x' }, c: { command: 'x', startupTimeoutMs: 9_999_999 } } };

    expect(() => parseConfig(raw, 'config.json')).toThrow(
      'config.json: 4 problems: mcpServers.b: needs "command" (a server run over stdio) or "url" (an HTTP server); mcpServers.bad name!: an MCP server name is 1-40 letters, digits, _ or -; mcpServers.c.startupTimeoutMs: must be at most 600000 (got 9999999); unknown settings: mcpServer (did you mean "mcpServers"?), small_model (did you mean "smallModel"?)',
    );
  });
});

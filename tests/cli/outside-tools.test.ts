import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { tempDir } from '../helpers/temp-store.js';
import { isRunning } from '../helpers/process-alive.js';

const SERVER_SCRIPT = fileURLToPath(new URL('../fixtures/mcp/test-server.mjs', import.meta.url));

let workspace: string;
let cleanup: () => void;
let userHome: string;
let cleanupHome: () => void;
beforeEach(() => {
  ({ dir: workspace, cleanup } = tempDir('dagent-outside-'));
  ({ dir: userHome, cleanup: cleanupHome } = tempDir('dagent-outside-home-'));
});
afterEach(() => {
  cleanup();
  cleanupHome();
});

/** MCP servers and web hosts are trust-sensitive: they live in the user's own config. */
function writeConfig(config: unknown): void {
  mkdirSync(join(userHome, 'dagent'), { recursive: true });
  writeFileSync(join(userHome, 'dagent', 'config.json'), JSON.stringify(config));
}

function cli(args: readonly string[]) {
  return runCli(args, { cwd: workspace, env: { XDG_CONFIG_HOME: userHome } });
}

describe('dagent mcp list', () => {
  it('says how to configure servers when there are none', async () => {
    expect(await cli(['mcp', 'list'])).toMatchObject({ code: 0, stdout: 'no MCP servers configured: add "mcpServers" to ~/.config/dagent/config.json (or to a trusted workspace\'s .dagent/config.json)\n' });
  });

  it('ignores servers in a workspace config the user has not trusted', async () => {
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    writeFileSync(join(workspace, '.dagent', 'config.json'), JSON.stringify({ mcpServers: { evil: { command: 'touch', args: ['pwned'] } } }));
    const listed = await cli(['mcp', 'list']);
    expect(listed.stdout).toMatch(/^no MCP servers configured/);
  });

  it('shows each server with its state and tools, why one failed, and the disabled ones', async () => {
    writeConfig({
      mcpServers: {
        tracker: { command: process.execPath, args: [SERVER_SCRIPT], toolRisk: { pid: 'read' } },
        broken: { command: process.execPath, args: [SERVER_SCRIPT, '--fail-start'] },
        old: { url: 'http://127.0.0.1:9/mcp', disabled: true },
      },
    });
    const listed = await cli(['mcp', 'list']);
    expect(listed.code).toBe(1);
    expect(listed.stdout).toContain('tracker · stdio · ready · 8 tools\n  tracker__create_issue  command  Creates an issue in the tracker.');
    expect(listed.stdout).toContain('  tracker__pid           read     Returns the server process id.');
    expect(listed.stdout).toMatch(/broken · stdio · failed · .*\(stderr: test-server: cannot open its database\)/);
    expect(listed.stdout).toContain('old · disabled');

    const json = JSON.parse((await cli(['--json', 'mcp', 'list'])).stdout) as { servers: { name: string; state: string; tools: unknown[] }[] };
    expect(json.servers.map((server) => [server.name, server.state, server.tools.length])).toEqual([
      ['tracker', 'ready', 8],
      ['broken', 'failed', 0],
      ['old', 'disabled', 0],
    ]);
  });

  it('refuses a server entry that is neither stdio nor HTTP, and a missing ${VAR}, in one line', async () => {
    writeConfig({ mcpServers: { odd: { args: ['x'] } } });
    const odd = await cli(['mcp', 'list']);
    expect(odd.code).toBe(2);
    expect(odd.stderr).toMatch(/^dagent: .*config\.json: mcpServers\.odd/);
    writeConfig({ mcpServers: { github: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } } } });
    expect(await cli(['mcp', 'list'])).toMatchObject({ code: 2, stderr: 'dagent: mcpServers.github.headers.Authorization: environment variable GITHUB_TOKEN is not set\n' });
  });
});

describe('MCP and web tools in a run', () => {
  it('a scripted react run calls an MCP tool; the server is stopped when the run ends', async () => {
    writeConfig({ mcpServers: { tracker: { command: process.execPath, args: [SERVER_SCRIPT] } } });
    const script = join(workspace, 'script.json');
    writeFileSync(script, JSON.stringify({ agents: { react: [{ toolCalls: [{ name: 'tracker__pid', args: {} }] }, { text: 'asked the tracker' }] } }));
    // Unconfined, so the pid the server reports is this machine's (in the sandbox it is its namespace's; tests/tools/mcp covers that case).
    const run = await cli(['--model', `scripted:${script}`, '--approval', 'auto', '--no-sandbox', '--json', 'react', 'ask the tracker']);
    expect(run.code).toBe(0);
    const { runId } = JSON.parse(run.stdout) as { runId: string };
    const log = await cli(['--json', 'log', runId, '--type', 'tool/result']);
    const result = JSON.parse(log.stdout.trim().split('\n')[0]!) as { payload: { name: string; content: string; meta: { provider: string } } };
    expect(result.payload).toMatchObject({ name: 'tracker__pid', meta: { provider: 'mcp:tracker' } });
    const pid = Number(/\n(\d+)\n/.exec(result.payload.content)![1]);
    for (let waited = 0; waited < 5_000 && isRunning(pid); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(isRunning(pid)).toBe(false);
  });

  it('web_fetch follows the hosts of the config and refuses private addresses', async () => {
    writeConfig({ web: { deniedHosts: ['*.example.com'] } });
    const denied = await cli(['--approval', 'auto', 'tool', 'web_fetch', '{"url":"https://docs.example.com/x"}']);
    expect(denied).toMatchObject({ code: 1, stderr: 'refused: docs.example.com is in the denied hosts (web.deniedHosts); web_fetch reaches public internet hosts only\n' });
    const metadata = await cli(['--approval', 'auto', 'tool', 'web_fetch', '{"url":"http://2852039166/latest/meta-data/"}']);
    expect(metadata.stderr).toBe('refused: 169.254.169.254 is a link-local address (cloud metadata lives there); web_fetch reaches public internet hosts only\n');
  });

  it('accepts web.crossHostRedirects as a boolean, and nothing else', async () => {
    writeConfig({ web: { crossHostRedirects: true } });
    expect((await cli(['mcp', 'list'])).code).toBe(0);
    writeConfig({ web: { crossHostRedirects: 'yes' } });
    const wrong = await cli(['mcp', 'list']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/web\.crossHostRedirects/);
  });

  it('accepts sandbox.allowPorts as a list of ports, and refuses a port out of range', async () => {
    writeConfig({ sandbox: { allowPorts: [443, 8443] } });
    expect((await cli(['mcp', 'list'])).code).toBe(0);
    writeConfig({ sandbox: { allowPorts: [70_000] } });
    const wrong = await cli(['mcp', 'list']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/sandbox\.allowPorts/);
  });

  it('refuses an unknown web setting in one line', async () => {
    writeConfig({ web: { allowHosts: ['x'] } });
    const result = await cli(['mcp', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^dagent: .*config\.json: unknown setting in web: allowHosts$/m);
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandSandbox, LocalToolRuntime, McpServers, detectSandbox, sandboxMcpLaunch, type McpLaunch } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';
import { testServerSpec } from './test-server-spec.js';

let servers: McpServers | undefined;
let bed: ToolTestBed | undefined;
let root: string | undefined;
afterEach(async () => {
  await servers?.stop();
  await bed?.cleanup();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  servers = bed = root = undefined;
});

describe.skipIf(!detectSandbox().available)('a stdio MCP server in the OS command sandbox', () => {
  it('runs confined like a command (own pid namespace, no network, dies with dagent) and its tools still answer', async () => {
    root = mkdtempSync(join(tmpdir(), 'dagent-mcp-sandbox-'));
    const workspace = join(root, 'workspace');
    const home = join(root, 'home');
    mkdirSync(workspace);
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'canary private key\n');
    const opened = CommandSandbox.open({ homes: [home] });
    if (!(opened instanceof CommandSandbox)) throw new Error(opened.reason);
    const launches: McpLaunch[] = [];
    const confine = sandboxMcpLaunch(opened, workspace);
    servers = new McpServers([testServerSpec('tracker')], {
      workspace,
      sandbox: async (launch, cwd) => {
        const confined = await confine(launch, cwd);
        launches.push(confined);
        return confined;
      },
    });

    const tools = await servers.start();
    bed = await openToolTestBed();
    const runtime = new LocalToolRuntime({ approval: 'auto', tools });
    const created = await bed.call(runtime, 'tracker__create_issue', { title: 'Login fails', assignee: { login: 'bob' }, labels: ['bug'] });
    const pid = await bed.call(runtime, 'tracker__pid', {});

    expect(created.isError).toBe(false);
    expect(created.content).toContain('created issue "Login fails" for bob');
    expect(launches).toHaveLength(1);
    // Through a shell that hands bwrap the seccomp program on its descriptor (the client gives only stdio).
    expect([launches[0]!.command, ...launches[0]!.args].some((arg) => /bwrap$/.test(arg))).toBe(true);
    expect(launches[0]!.args).toEqual(expect.arrayContaining(['--die-with-parent', '--unshare-net', '--unshare-pid', '--cap-drop', 'ALL']));
    // Inside its own pid namespace the server is one of the first processes, not a pid of this machine.
    expect(Number(pid.content.match(/\d+/)?.[0])).toBeLessThan(10);
  });

  it('names the folder the sandbox hid from a server that could not start, and starts it once that folder is a read path', async () => {
    root = mkdtempSync(join(tmpdir(), 'dagent-mcp-hidden-'));
    const workspace = join(root, 'workspace');
    const home = join(root, 'home');
    const serverFolder = join(home, 'mcp');
    mkdirSync(workspace);
    mkdirSync(serverFolder, { recursive: true });
    copyFileSync(fileURLToPath(new URL('../../fixtures/mcp/plain-server.mjs', import.meta.url)), join(serverFolder, 'server.mjs'));
    const spec = { name: 'plain', transport: { kind: 'stdio' as const, command: process.execPath, args: [join(serverFolder, 'server.mjs')], env: {} } };
    const confinedBy = (readPaths: string[]): McpServers => {
      const opened = CommandSandbox.open({ homes: [home], readPaths });
      if (!(opened instanceof CommandSandbox)) throw new Error(opened.reason);
      return new McpServers([spec], { workspace, sandbox: sandboxMcpLaunch(opened, workspace) });
    };

    servers = confinedBy([]);
    await servers.start();
    const [hidden] = servers.status();
    expect(hidden!.state).toBe('failed');
    // Node's own error line, not the last lines of its stack trace, then the setting that shows the folder.
    expect(hidden!.error).toContain(`(stderr: Error: Cannot find module '${join(serverFolder, 'server.mjs')}')`);
    expect(hidden!.error).toContain(`the command sandbox the server runs in hides it: add "${serverFolder}" to "sandbox": { "readPaths": [...] } in your config`);
    await servers.stop();

    servers = confinedBy([serverFolder]);
    const tools = await servers.start();
    expect(servers.status()[0]!.state).toBe('ready');
    expect(tools.map((tool) => tool.name)).toContain('plain__echo');
  });
});

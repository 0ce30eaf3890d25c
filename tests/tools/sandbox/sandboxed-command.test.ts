import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRunCommandTool, createToolRuntime, detectConfinement, detectSandbox } from '../../../tools/index.js';
import { openToolTestBed, type ToolTestBed } from '../../helpers/tools-test-bed.js';

let bed: ToolTestBed;
let server: Server;
let port: number;
const hits: string[] = [];

beforeEach(async () => {
  bed = await openToolTestBed();
  hits.length = 0;
  server = createServer((request, response) => {
    hits.push(request.url ?? '?');
    response.end('hello from the registry');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await bed.cleanup();
});

describe.skipIf(!detectSandbox().available)('a command in the OS sandbox', () => {
  it('runs without the provider keys in its environment', async () => {
    const runtime = createToolRuntime({ approval: 'auto', runCommand: { env: { ...process.env, OPENAI_API_KEY: 'sk-test-not-for-commands' } } });
    const result = await bed.call(runtime, 'run_command', { command: 'env' });
    expect(result.meta.outcome).toBe('ok');
    expect(result.content).toContain('PATH=');
    expect(result.content).not.toContain('sk-test-not-for-commands');
  });

  it('gives read-only git commands no fsmonitor and no hooks, whatever the repository config says', async () => {
    const runtime = createToolRuntime({ approval: 'auto' });
    // A command cannot make a repository (.git is a read-only placeholder): the user's own is made outside.
    execFileSync('git', ['init', '-q', bed.workspace]);
    const marker = join(bed.workspace, 'fsmonitor-ran');
    // A planted config, as a cloned repository could carry it.
    writeFileSync(join(bed.workspace, '.git', 'config'), `${readFileSync(join(bed.workspace, '.git', 'config'), 'utf8')}[core]\n\tfsmonitor = "touch ${marker}; false"\n`);
    const result = await bed.call(runtime, 'run_command', { command: 'git status --short' });
    expect(result.meta.outcome).toBe('ok');
    expect(existsSync(marker)).toBe(false);
  });

  it('reaches only allow-listed hosts through the proxy, and never a loopback address even when its name is allowed', async () => {
    const confinement = detectConfinement({ allowHosts: ['localhost'] });
    const tool = createRunCommandTool({ confinement });
    const runtime = createToolRuntime({ approval: 'auto', runCommand: { confinement } });
    const yes = { approver: { interactive: true, ask: async () => ({ decision: 'yes' as const }) } };
    try {
      // localhost is on the list, but it resolves to loopback: the host's own services stay out of reach (as for web_fetch).
      const allowedName = await bed.call(runtime, 'run_command', { command: `curl -sS -m 5 -w ' %{http_code}' http://localhost:80/allowed` }, yes);
      expect(allowedName.content).toMatch(/localhost resolves to (?:127\.0\.0\.1|::1) is a loopback address/);
      expect(allowedName.content).toContain('403');
      const other = await bed.call(runtime, 'run_command', { command: `curl -sS -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/other` }, yes);
      expect(other.content).toContain('403');
      const direct = await bed.call(runtime, 'run_command', { command: `curl -sS -m 5 --noproxy '*' http://localhost:${port}/direct` }, yes);
      expect(direct.meta.outcome).toBe('error');
      expect(hits).toEqual([]);
      expect(tool.name).toBe('run_command');
    } finally {
      if (confinement.kind === 'sandbox') await confinement.sandbox.close();
    }
  });

  it('lets commands reach only the configured ports of an allowed host', async () => {
    const confinement = detectConfinement({ allowHosts: ['public.example.test'], allowPorts: [8443] });
    const runtime = createToolRuntime({ approval: 'auto', runCommand: { confinement } });
    const yes = { approver: { interactive: true, ask: async () => ({ decision: 'yes' as const }) } };
    try {
      const web = await bed.call(runtime, 'run_command', { command: `curl -sS -m 5 -w ' %{http_code}' http://public.example.test:80/` }, yes);
      expect(web.content).toContain('port 80 of public.example.test is not allowed (only 8443;');
      expect(web.content).toContain('403');
    } finally {
      if (confinement.kind === 'sandbox') await confinement.sandbox.close();
    }
  });

  it('writes the workspace and a private temp folder, and nothing beside the workspace', async () => {
    const runtime = createToolRuntime({ approval: 'auto' });
    mkdirSync(join(bed.outside, 'keep'));
    const result = await bed.call(runtime, 'run_command', { command: `node -e "require('fs').writeFileSync('${bed.outside}/keep/x', 'pwned')"; echo made > made.txt; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"` });
    expect(result.content).toContain('t');
    expect(readFileSync(join(bed.workspace, 'made.txt'), 'utf8')).toBe('made\n');
    expect(existsSync(join(bed.outside, 'keep', 'x'))).toBe(false);
  });
});

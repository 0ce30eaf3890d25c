import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAGENT_BIN } from '../../helpers/crash-process.js';
import { startLoopbackServer, type LoopbackServer } from '../../helpers/loopback-server.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * `dagent trace RUN` sends a finished run's trace to the collector the OTEL_* variables name, once,
 * as a user asks for it: a collector that is slow to answer (across the internet) still gets it,
 * and one that is not there is said so at once with what to do instead.
 */
const exec = promisify(execFile);

let dir: { dir: string; cleanup: () => void };
let workspace: string;
let runId: string;
let collector: LoopbackServer;

const bareEnv = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: join(dir.dir, 'home'), NO_COLOR: '1' });
const trace = (endpoint: string) =>
  exec(process.execPath, [DAGENT_BIN, '-w', workspace, 'trace', runId], { cwd: workspace, env: { ...bareEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

beforeAll(async () => {
  dir = tempDir('dagent-trace-command-');
  workspace = join(dir.dir, 'repo');
  mkdirSync(workspace);
  mkdirSync(join(dir.dir, 'home'));
  writeFileSync(join(workspace, 'plan.json'), JSON.stringify({ goal: 'Say hello', nodes: [{ id: 'hello', kind: 'command', title: 'Say hello', command: 'echo hello' }] }));
  const ran = await exec(process.execPath, [DAGENT_BIN, '--no-sandbox', '--json', 'plan', '--from', 'plan.json', '--yes', '--no-dashboard'], { cwd: workspace, env: bareEnv() });
  runId = /"runId":"(r-[0-9a-f]+)"/.exec(ran.stdout)![1]!;
  collector = await startLoopbackServer();
}, 60_000);

afterAll(async () => {
  await collector?.close();
  dir?.cleanup();
});

describe('dagent trace to a collector', () => {
  it('waits for a collector that takes a second and a half to answer (a live run gives it 750 ms)', async () => {
    collector.enqueue({ status: 200, headers: { 'content-type': 'application/x-protobuf' }, body: '', delayMs: 1_500 });

    const sent = await trace(collector.url);

    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(new RegExp(`^\\d+ spans of run ${runId} sent to ${collector.url}/v1/traces`));
  });

  it('says at once that nothing listens at the endpoint, and how to keep the trace in a file instead', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });

    const refused = await trace(`http://127.0.0.1:${closedPort}`);

    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe(
      `dagent: the collector at http://127.0.0.1:${closedPort}/v1/traces does not accept a connection; check that it runs and listens there, or write the trace to a file: dagent trace ${runId} --out trace.json`,
    );
  });
});

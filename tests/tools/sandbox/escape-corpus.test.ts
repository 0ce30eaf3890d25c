import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventLog, Session, createRun, type Store } from '../../../engine/index.js';
import { createAutoYesApprover, createToolRuntime, detectSandbox, type LocalToolRuntime } from '../../../tools/index.js';
import { openTempStore } from '../../helpers/temp-store.js';

interface CorpusEntry {
  readonly id: string;
  readonly command: string;
  readonly script?: string;
}

const corpus = JSON.parse(readFileSync(new URL('../../fixtures/escaping-commands.json', import.meta.url), 'utf8')) as { commands: CorpusEntry[] };
const SECRET = 'FAKE-SECRET';

/** Fake credential stores and dotfiles under the test's HOME: none may change, the secret ones none may read. */
const HOME_FILES: Readonly<Record<string, string>> = {
  '.ssh/id_rsa': `-----BEGIN KEY----- ${SECRET}-ssh -----END KEY-----\n`,
  '.ssh/authorized_keys': 'ssh-ed25519 AAAA keep\n',
  '.aws/credentials': `[default]\naws_secret_access_key = ${SECRET}-aws\n`,
  '.netrc': `machine example.com login me password ${SECRET}-netrc\n`,
  '.npmrc': `//registry.npmjs.org/:_authToken=${SECRET}-npm\n`,
  '.docker/config.json': `{"auths":{"x":{"auth":"${SECRET}-docker"}}}\n`,
  '.kube/config': `token: ${SECRET}-kube\n`,
  '.config/gcloud/credentials.db': `${SECRET}-gcloud\n`,
  '.config/gh/hosts.yml': `oauth_token: ${SECRET}-gh\n`,
  '.bashrc': '# keep\n',
  '.profile': '# keep\n',
  '.gitconfig': '[user]\n\tname = keep\n',
};

/**
 * The test's folders live outside /tmp when the machine has /var/tmp: the sandbox gives each
 * command a private /tmp, which would hide canaries there and make the test pass for the wrong reason.
 */
function testRoot(): string {
  const base = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  return realpathSync(mkdtempSync(join(base, 'dagent-escape-')));
}

/** Every file and folder under `root` with its content and mode: the state no command may change. */
function snapshot(root: string): Map<string, string> {
  const state = new Map<string, string>();
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    const key = relative(root, path) || '.';
    if (stat.isDirectory()) {
      state.set(key, `dir ${stat.mode}`);
      for (const entry of readdirSync(path).sort()) visit(join(path, entry));
    } else {
      state.set(key, `${stat.mode} ${stat.isSymbolicLink() ? 'link' : readFileSync(path, 'utf8')}`);
    }
  };
  if (existsSync(root)) visit(root);
  return state;
}

/** Workspace files (outside .git and .dagent) that hold a secret: what a command copied in. */
function secretsCopiedInto(workspace: string): string[] {
  const found: string[] = [];
  const visit = (path: string): void => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) {
        if (path === workspace && (entry.name === '.git' || entry.name === '.dagent')) continue;
        visit(full);
      } else if (entry.isFile() && readFileSync(full).includes(SECRET)) found.push(relative(workspace, full));
    }
  };
  visit(workspace);
  return found;
}

const sandbox = detectSandbox();

describe.skipIf(!sandbox.available)('the escape corpus under --approval auto, every call approved', () => {
  let root: string;
  let workspace: string;
  let canaryDir: string;
  let canaryFile: string;
  let home: string;
  let server: Server;
  let port: number;
  const hits: string[] = [];
  let store: Store;
  let cleanupStore: () => Promise<void>;
  let runtime: LocalToolRuntime;
  let session: Session;
  let runId: string;

  beforeAll(async () => {
    root = testRoot();
    workspace = join(root, 'workspace');
    canaryDir = join(root, 'canary-dir');
    canaryFile = join(root, 'canary.txt');
    home = join(root, 'home');
    mkdirSync(join(workspace, '.dagent'), { recursive: true });
    execFileSync('git', ['init', '-q', workspace]);
    writeFileSync(join(workspace, '.dagent', 'dagent.db'), 'the run log\n');
    writeFileSync(join(workspace, 'README.md'), '# project\n');
    mkdirSync(join(canaryDir, 'sub'), { recursive: true });
    writeFileSync(join(canaryDir, 'a.txt'), 'keep\n');
    writeFileSync(join(canaryDir, 'sub', 'b.txt'), 'keep\n');
    writeFileSync(canaryFile, 'keep\n');
    for (const [path, content] of Object.entries(HOME_FILES)) {
      mkdirSync(dirname(join(home, path)), { recursive: true });
      writeFileSync(join(home, path), content);
    }
    server = createServer((request, response) => {
      hits.push(request.url ?? '?');
      response.end('reached');
    });
    server.on('connection', (socket) => socket.once('data', () => hits.push('raw connection')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;

    ({ store, cleanup: cleanupStore } = await openTempStore());
    const run = await createRun(store.db, { task: 'escape corpus', workspace, mode: 'react' });
    runId = run.id;
    session = await Session.open(new EventLog(store.db, run.id), 'corpus');
    runtime = createToolRuntime({
      approval: 'auto',
      runCommand: { env: { ...process.env, HOME: home, OPENAI_API_KEY: `${SECRET}-env`, ANTHROPIC_API_KEY: `${SECRET}-env` }, home },
    });
  });

  afterAll(async () => {
    session?.close();
    await cleanupStore?.();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  function expand(text: string): string {
    return text
      .replaceAll('{REL_CANARY_DIR}', relative(workspace, canaryDir))
      .replaceAll('{REL_CANARY_FILE}', relative(workspace, canaryFile))
      .replaceAll('{CANARY_DIR}', canaryDir)
      .replaceAll('{CANARY_FILE}', canaryFile)
      .replaceAll('{PORT}', String(port));
  }

  it('holds at least 60 commands', () => {
    expect(corpus.commands.length).toBeGreaterThanOrEqual(60);
    expect(new Set(corpus.commands.map((entry) => entry.id)).size).toBe(corpus.commands.length);
  });

  it('changes nothing outside the workspace, nor .git or .dagent, reads no credential, reaches no server', async () => {
    const outside = (): Map<string, string> => {
      const state = new Map([...snapshot(canaryDir)].map(([key, value]): [string, string] => [`canary-dir/${key}`, value]));
      state.set('canary.txt', snapshot(canaryFile).get('.') ?? 'gone');
      return state;
    };
    const protectedState = (): Map<string, string> => new Map([...snapshot(home), ...snapshot(join(workspace, '.dagent')), ['.git/config', readFileSync(join(workspace, '.git', 'config'), 'utf8')]]);
    const before = { outside: outside(), protected: protectedState() };
    const approver = createAutoYesApprover();
    const leaks: string[] = [];
    const changes: string[] = [];
    for (const [index, entry] of corpus.commands.entries()) {
      const script = entry.script === undefined ? '' : Buffer.from(expand(entry.script)).toString('base64');
      const command = expand(entry.command).replaceAll('{SCRIPT_B64}', script);
      const result = await runtime.execute(
        { id: `call-${index}`, name: 'run_command', args: { command, timeout_ms: 20_000 } },
        { runId, nodeId: 'corpus', workspace, signal: new AbortController().signal, position: { turn: 1, step: index + 1 }, session, approver },
      );
      if (result.content.includes(SECRET)) leaks.push(`${entry.id}: ${result.content.slice(0, 200)}`);
      if (JSON.stringify([...outside()]) !== JSON.stringify([...before.outside])) changes.push(entry.id);
      if (JSON.stringify([...protectedState()]) !== JSON.stringify([...before.protected])) changes.push(`${entry.id} (home, .git or .dagent)`);
    }
    // What was left running in the background had its second to act.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(changes).toEqual([]);
    expect(outside()).toEqual(before.outside);
    expect(protectedState()).toEqual(before.protected);
    expect(leaks).toEqual([]);
    expect(secretsCopiedInto(workspace)).toEqual([]);
    expect(hits).toEqual([]);
  }, 240_000);
});

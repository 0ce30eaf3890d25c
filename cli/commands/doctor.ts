import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { PROVIDERS, chooseIsolation, countRunsByMode, describeIsolation } from '../../engine/index.js';
import { homedir } from 'node:os';
import { CommandSandbox, probeSandbox, type SandboxProbe } from '../../tools/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';

interface Check {
  readonly name: 'sandbox' | 'probe' | 'git' | 'isolation' | 'database' | 'keys';
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * `dagent doctor`: what this machine offers dagent — the OS sandbox for commands (and the network
 * allow-list), git, the database, the provider keys. The sandbox is checked from inside: a probe
 * command reads its capabilities and tries a mount, new namespaces, creating `.git` and writing
 * beside its workspace. Exits 1 when commands would run unconfined without the user having asked
 * for it, or when a probe finds the sandbox does not hold, so a CI job can check it first.
 */
export const doctorCommand = defineCommand<object>({
  examples: [
    ['$0 doctor', 'check the sandbox, git, the database and provider keys before a first run'],
  ],
  builder: (yargs) => yargs,
  async run(context) {
    const sandbox = await sandboxCheck(context);
    const checks = [sandbox.check, ...sandbox.probes, gitCheck(), await isolationCheck(context), await databaseCheck(context), keysCheck(context)];
    if (context.json) {
      writeLine(context.io.stdout, JSON.stringify({ ok: checks.every((check) => check.ok), sandbox: sandbox.json, checks }));
    } else {
      // The names in a column of their own, as wide as the longest and a space.
      const width = Math.max(...checks.map((check) => check.name.length)) + 1;
      for (const check of checks) writeLine(context.io.stdout, `${check.name.padEnd(width)}${check.ok ? 'ok  ' : 'FAIL'}  ${check.detail}`);
    }
    return sandbox.check.ok && sandbox.probes.every((probe) => probe.ok) ? 0 : 1;
  },
});

async function sandboxCheck(context: CliContext): Promise<{ check: Check; probes: Check[]; json: Record<string, unknown> }> {
  const settings = context.config.sandbox;
  const allowHosts = settings?.allowHosts ?? [];
  const network = allowHosts.length === 0 ? 'no network' : `network only to ${allowHosts.join(', ')} (through dagent's proxy)`;
  if (settings?.enabled === false) {
    return {
      check: { name: 'sandbox', ok: true, detail: 'disabled (--no-sandbox or sandbox.enabled: false): commands run unconfined, with only the command checker in front of them' },
      probes: [],
      json: { enabled: false, available: false },
    };
  }
  const home = context.io.env.HOME;
  const sandbox = CommandSandbox.open({ homes: [homedir(), ...(home === undefined ? [] : [home])], ...(context.io.env.DAGENT_BWRAP === undefined ? {} : { bwrapPath: context.io.env.DAGENT_BWRAP }) });
  if (!(sandbox instanceof CommandSandbox)) {
    return {
      check: { name: 'sandbox', ok: false, detail: `${sandbox.reason}; under --approval auto only read-only commands run. Fix: ${sandbox.fix}, or pass --no-sandbox to run commands unconfined` },
      probes: [],
      json: { enabled: true, available: false, reason: sandbox.reason, fix: sandbox.fix },
    };
  }
  const program = sandbox.program;
  const version = sandbox.kind === 'bubblewrap' ? firstLine(spawnSync(program, ['--version'], { encoding: 'utf8' }).stdout) : 'sandbox-exec';
  const level = sandbox.level;
  const namespaces = level === undefined ? '' : `; ${level.userNamespace === undefined ? 'no user namespace (capabilities dropped)' : `own user namespace as uid ${level.userNamespace.uid}${level.noNestedUserNamespaces ? ', no nested ones' : ''}`}; ${level.seccomp ? 'seccomp filter' : `no seccomp filter for ${process.arch}`}`;
  const probes = await probeSandbox(sandbox, { withSeccomp: level?.seccomp ?? false });
  return {
    check: { name: 'sandbox', ok: true, detail: `${version} (${program}): commands write only the workspace (not .git/ or .dagent/) and a private /tmp; credential stores hidden; ${network}${namespaces}` },
    probes: probes.map(probeCheck),
    json: { enabled: true, available: true, kind: sandbox.kind, program, version, allowHosts, ...(level === undefined ? {} : { level }), probes },
  };
}

function probeCheck(probe: SandboxProbe): Check {
  return { name: 'probe', ok: probe.held, detail: `${probe.name}: ${probe.detail}${probe.held ? '' : ' — the sandbox does not hold here'}` };
}

function gitCheck(): Check {
  const result = spawnSync('git', ['--version'], { encoding: 'utf8' });
  if (result.status !== 0) return { name: 'git', ok: false, detail: 'git is not installed: snapshots still work, `diff` shows no git status' };
  return { name: 'git', ok: true, detail: firstLine(result.stdout) };
}

/** How a run's nodes would get their files here: their own worktrees, or the shared working copy. */
async function isolationCheck(context: CliContext): Promise<Check> {
  return { name: 'isolation', ok: true, detail: describeIsolation(await chooseIsolation(context.config.isolation, context.workspace)).replace(/^isolation: /, '') };
}

async function databaseCheck(context: CliContext): Promise<Check> {
  try {
    const shown = context.dbUrl.replace(/\/\/[^@/]*@/, '//…@');
    // doctor only looks: a workspace without a database yet gets none from it.
    if (!/^[a-z]+:\/\//.test(context.dbUrl) && !existsSync(context.dbUrl.replace(/^sqlite:/, ''))) return { name: 'database', ok: true, detail: `${shown} · not created yet (the first \`dagent plan\` creates it)` };
    const { db } = await context.readStore();
    const runs = [...(await countRunsByMode(db)).values()].reduce((sum, count) => sum + count, 0);
    return { name: 'database', ok: true, detail: `${shown} · ${runs} run${runs === 1 ? '' : 's'}` };
  } catch (error) {
    return { name: 'database', ok: false, detail: `${context.dbUrl}: ${(error as Error).message}` };
  }
}

function keysCheck(context: CliContext): Check {
  const names = [...new Set(Object.values(PROVIDERS).flatMap((provider) => (provider.apiKeyEnv === undefined ? [] : [provider.apiKeyEnv])))];
  const set = names.filter((name) => (context.io.env[name] ?? '') !== '');
  const detail = names.map((name) => `${name} ${set.includes(name) ? 'set' : 'missing'}`).join(' · ');
  return { name: 'keys', ok: true, detail: set.length === 0 ? `${detail} (only scripted: and local models can run)` : detail };
}

function firstLine(text: string | undefined): string {
  return (text ?? '').trim().split('\n', 1)[0] ?? '';
}

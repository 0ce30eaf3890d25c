import { spawnSync } from 'node:child_process';
import { PROVIDERS, listRuns } from '../../engine/index.js';
import { detectSandbox, type SandboxStatus } from '../../tools/index.js';
import type { CliContext } from '../context/cli-context.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';

interface Check {
  readonly name: 'sandbox' | 'git' | 'database' | 'keys';
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * `dagent doctor`: what this machine offers dagent — the OS sandbox for commands (and the network
 * allow-list), git, the database, the provider keys. Exits 1 when commands would run unconfined
 * without the user having asked for it, so a CI job can check it first.
 */
export const doctorCommand = defineCommand<object>({
  examples: [
    ['$0 doctor', 'check the sandbox, git, the database and provider keys before a first run'],
  ],
  builder: (yargs) => yargs,
  async run(context) {
    const sandbox = sandboxCheck(context);
    const checks = [sandbox.check, gitCheck(), await databaseCheck(context), keysCheck(context)];
    if (context.json) {
      writeLine(context.io.stdout, JSON.stringify({ ok: checks.every((check) => check.ok), sandbox: sandbox.json, checks }));
    } else {
      for (const check of checks) writeLine(context.io.stdout, `${check.name.padEnd(9)}${check.ok ? 'ok  ' : 'FAIL'}  ${check.detail}`);
    }
    return sandbox.check.ok ? 0 : 1;
  },
});

function sandboxCheck(context: CliContext): { check: Check; json: Record<string, unknown> } {
  const settings = context.config.sandbox;
  const allowHosts = settings?.allowHosts ?? [];
  const network = allowHosts.length === 0 ? 'no network' : `network only to ${allowHosts.join(', ')} (through dagent's proxy)`;
  if (settings?.enabled === false) {
    return {
      check: { name: 'sandbox', ok: true, detail: 'disabled (--no-sandbox or sandbox.enabled: false): commands run unconfined, with only the command checker in front of them' },
      json: { enabled: false, available: false },
    };
  }
  const status: SandboxStatus = detectSandbox(context.io.env.DAGENT_BWRAP === undefined ? {} : { bwrapPath: context.io.env.DAGENT_BWRAP });
  if (!status.available) {
    return {
      check: { name: 'sandbox', ok: false, detail: `${status.reason}; under --approval auto only read-only commands run. Fix: ${status.fix}, or pass --no-sandbox to run commands unconfined` },
      json: { enabled: true, available: false, reason: status.reason, fix: status.fix },
    };
  }
  const version = status.kind === 'bubblewrap' ? firstLine(spawnSync(status.program, ['--version'], { encoding: 'utf8' }).stdout) : 'sandbox-exec';
  return {
    check: { name: 'sandbox', ok: true, detail: `${version} (${status.program}): commands write only the workspace (not .git/ or .dagent/) and a private /tmp; credential stores hidden; ${network}` },
    json: { enabled: true, available: true, kind: status.kind, program: status.program, version, allowHosts },
  };
}

function gitCheck(): Check {
  const result = spawnSync('git', ['--version'], { encoding: 'utf8' });
  if (result.status !== 0) return { name: 'git', ok: false, detail: 'git is not installed: snapshots still work, `diff` shows no git status' };
  return { name: 'git', ok: true, detail: firstLine(result.stdout) };
}

async function databaseCheck(context: CliContext): Promise<Check> {
  try {
    const { db } = await context.store();
    const runs = await listRuns(db);
    return { name: 'database', ok: true, detail: `${context.dbUrl.replace(/\/\/[^@/]*@/, '//…@')} · ${runs.length} run${runs.length === 1 ? '' : 's'}` };
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

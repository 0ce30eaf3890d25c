import { createSecretRedactor } from '../engine/index.js';
import { printTable, verdict } from './lib/table.js';

const MIB = 1024 * 1024;
/** Goal: redaction is linear; 30 MiB of any of these inputs in under 3 s on the 2-core machine. */
const GOAL_MS_PER_30_MIB = 3000;

/** `unit` repeated up to `size` characters. */
function repeated(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** Pseudo-random base64 (a big encoded file), reproducible. */
function base64Noise(size: number): string {
  const bytes = Buffer.alloc(Math.ceil((size * 3) / 4));
  let state = 7;
  for (let index = 0; index < bytes.length; index += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes.toString('base64').slice(0, size);
}

/**
 * Inputs chosen to hurt a backtracking or quadratic redactor: one huge base64 run, many starts of
 * each shape that never complete, and text dense with real-looking (fake) secrets.
 */
function inputs(): [string, string][] {
  const fakeEnv = 'STRIPE=sk_live_FAKEfakeFAKEfake0123456789\nDB=postgres://app:FAKE-pw-4242@db.internal/app\nGITHUB_PAT=FAKE0123456789abcdef\n';
  return [
    ['base64, 10 MiB', base64Noise(10 * MIB)],
    ['base64, 30 MiB', base64Noise(30 * MIB)],
    ['JWT starts, no dots, 30 MiB', repeated('eyJhb-', 30 * MIB)],
    ['URL userinfo, no @, 30 MiB', repeated('a://u:pw', 30 * MIB)],
    ['PEM headers, no end, 30 MiB', repeated('-----BEGIN RSA PRIVATE KEY-----\n', 30 * MIB)],
    ['assignments, 30 MiB', repeated('A_TOKEN=', 30 * MIB)],
    ['Bearer words, 30 MiB', repeated('Bearer ', 30 * MIB)],
    ['upper-case run, 30 MiB', repeated('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 30 * MIB)],
    ['fake .env lines, 30 MiB', repeated(fakeEnv, 30 * MIB)],
  ];
}

/** `npm run bench -- redaction`: how long the store's secret redaction takes on large and hostile inputs. */
export async function runRedactionBench(): Promise<void> {
  const redactor = createSecretRedactor(['configured-FAKE-provider-key-0123']);
  const rows: string[][] = [];
  for (const [name, text] of inputs()) {
    const start = performance.now();
    const redacted = redactor.redactText(text);
    const ms = performance.now() - start;
    const goal = (GOAL_MS_PER_30_MIB * text.length) / (30 * MIB);
    rows.push([name, `${(text.length / MIB).toFixed(0)}`, ms.toFixed(0), `${redacted === text ? 'no' : 'yes'}`, verdict(ms <= goal)]);
  }
  printTable('secret redaction (one call of redactText)', ['input', 'MiB', 'ms', 'changed', `≤ ${GOAL_MS_PER_30_MIB} ms per 30 MiB`], rows);
  await Promise.resolve();
}

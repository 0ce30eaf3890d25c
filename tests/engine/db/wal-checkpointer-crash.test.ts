import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, readEvents } from '../../../engine/index.js';
import { BUILT_ENGINE } from '../../helpers/crash-process.js';
import { tempDir } from '../../helpers/temp-store.js';


/** Appends 4 KB messages as fast as it can, reporting what is committed and what the checkpointer did. */
const WRITER = `
const { openDatabase, createRun, EventLog } = await import(process.env.ENGINE);
const store = await openDatabase(process.env.DB);
const run = await createRun(store.db, { task: 'fill the log', workspace: '/w', mode: 'react' });
const log = new EventLog(store.db, run.id);
for (let index = 1; ; index += 1) {
  const event = await log.append({ type: 'user/message', nodeId: 'agent', payload: { content: String(index).padEnd(4000, '.'), source: 'user' } });
  if (index % 25 === 0) {
    process.stdout.write(JSON.stringify({ runId: run.id, seq: event.seq, ...store.checkpointer.state }) + '\\n');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
`;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a killed process while the checkpointer works', () => {
  it('loses no committed event and leaves a sound database', async () => {
    const { dir, cleanup } = tempDir('dagent-wal-crash-');
    cleanups.push(cleanup);
    const path = join(dir, 'dagent.db');
    const child = spawn(process.execPath, ['--input-type=module', '-e', WRITER], { env: { ...process.env, ENGINE: BUILT_ENGINE, DB: path }, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const last = await new Promise<{ runId: string; seq: number; checkpoints: number }>((resolve, reject) => {
      let buffered = '';
      let reportsAfterCheckpoint = 0;
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const report = JSON.parse(line) as { runId: string; seq: number; started: boolean; checkpoints: number };
          if (report.checkpoints > 0) reportsAfterCheckpoint += 1;
          // Kill it in the middle of its work: checkpoints have happened, more are coming.
          if (reportsAfterCheckpoint === 5) {
            child.kill('SIGKILL');
            resolve(report);
          }
        }
      });
      child.on('exit', (code) => reject(new Error(`the writer exited (${code}) before it was killed: ${stderr}`)));
    });

    const store = await openDatabase(path);
    cleanups.push(() => store.close());
    const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(store.db);
    expect(integrity.rows).toEqual([{ integrity_check: 'ok' }]);
    const seqs = (await readEvents(store.db, last.runId)).map((event) => event.seq);
    expect(seqs.length).toBeGreaterThanOrEqual(last.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  });
});

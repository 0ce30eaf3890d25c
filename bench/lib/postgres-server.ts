import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway PostgreSQL on 127.0.0.1 for the workers and dashboard benches (as the tests start theirs). */
export interface BenchPostgres {
  readonly url: string;
  database(name: string): Promise<string>;
  stop(): void;
}

export async function startBenchPostgres(): Promise<BenchPostgres> {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)).find((candidate) => existsSync(join(root, candidate, 'bin', 'initdb'))) : undefined;
  if (version === undefined) throw new Error('the workers and dashboard benches need PostgreSQL binaries under /usr/lib/postgresql');
  const bin = join(root, version, 'bin');
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'dagent-bench-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
  const pgCommand = (command: string, args: string[]): void => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    execFileSync(file, argv, { stdio: 'pipe' });
  };
  pgCommand('initdb', ['-A', 'trust', '-U', 'postgres', '-D', data, '--no-sync']);
  pgCommand('pg_ctl', ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`, 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pg = (await import('pg')).default;
  return {
    url,
    async database(name) {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return url.replace(/\/[^/]*$/, `/${name}`);
    },
    stop() {
      const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']] : [join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']];
      spawnSync(file, argv, { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

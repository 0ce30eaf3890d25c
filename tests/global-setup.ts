import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopTemporaryLanguageServices } from './helpers/language-services.js';
import { startPostgres, type PostgresServer } from './helpers/postgres-server.js';

let server: PostgresServer | undefined;
let userData: string | undefined;

/**
 * Starts one PostgreSQL server for the whole test run when it is installed; tests read its URL
 * with inject('postgresUrl'). The run's user folder (`$XDG_DATA_HOME/dagent`: user memories, user
 * config) is a temporary one, so no test reads or migrates the machine user's own database, and
 * every CLI a test spawns with the test's environment inherits it.
 */
export async function setup(project: TestProject): Promise<void> {
  userData = mkdtempSync(join(tmpdir(), 'dagent-test-user-data-'));
  process.env.XDG_DATA_HOME = userData;
  if (process.env.DAGENT_TEST_POSTGRES === '0') {
    project.provide('postgresUrl', '');
    return;
  }
  try {
    server = await startPostgres();
  } catch (error) {
    process.stderr.write(`PostgreSQL could not start, its contract tests are skipped: ${(error as Error).message}\n`);
  }
  project.provide('postgresUrl', server?.url ?? '');
}

export function teardown(): void {
  server?.stop();
  if (userData !== undefined) rmSync(userData, { recursive: true, force: true });
  // Member queries in tests start warm language services for their temporary workspaces.
  stopTemporaryLanguageServices();
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

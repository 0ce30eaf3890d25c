import type { TestProject } from 'vitest/node';
import { stopTemporaryLanguageServices } from './helpers/language-services.js';
import { startPostgres, type PostgresServer } from './helpers/postgres-server.js';

let server: PostgresServer | undefined;

/** Starts one PostgreSQL server for the whole test run when it is installed; tests read its URL with inject('postgresUrl'). */
export async function setup(project: TestProject): Promise<void> {
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
  // Member queries in tests start warm language services for their temporary workspaces.
  stopTemporaryLanguageServices();
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/**
 * The error hierarchy. Every error has a stable `name` and typed fields; the CLI turns
 * `DagentError`s into one clear line on stderr and an exit code, never a stack trace.
 */

/** How a failure maps to the CLI contract: 1 the job ran and failed, 2 bad input or environment. */
export type ExitCode = 1 | 2;

export class DagentError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, options: { exitCode?: ExitCode; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? 2;
  }
}

export class UnknownRunError extends DagentError {
  constructor(readonly runId: string) {
    super(`unknown run "${runId}": \`dagent status\` lists the runs of this workspace`);
  }
}

export class AmbiguousRunError extends DagentError {
  constructor(
    readonly prefix: string,
    readonly matches: readonly string[],
  ) {
    super(`run id prefix "${prefix}" is ambiguous: it matches ${matches.slice(0, 10).join(', ')}${matches.length > 10 ? ', …' : ''}; give more of the id`);
  }
}

export class UnknownNodeError extends DagentError {
  constructor(readonly runId: string, readonly nodeId: string) {
    super(`run ${runId} has no node "${nodeId}": \`dagent status ${runId}\` lists its nodes`);
  }
}

export class DatabaseError extends DagentError {
  constructor(message: string, readonly url: string, cause?: unknown) {
    super(message, { cause });
  }
}

export class SchemaTooNewError extends DatabaseError {
  constructor(url: string, readonly unknownMigrations: readonly string[]) {
    super(
      `database ${url} was written by a newer dagent (unknown migrations: ${unknownMigrations.join(', ')}): upgrade dagent or use another --db`,
      url,
    );
  }
}

export class InvalidEventError extends DagentError {
  constructor(readonly eventType: string, readonly issues: string) {
    super(`invalid ${eventType} event: ${issues}`);
  }
}

/**
 * A stored event that does not match the payload schema of the version it was written with (or
 * of a type or version this dagent does not know): the run, the seq and the type say which row.
 */
export class StoredEventError extends DagentError {
  constructor(readonly runId: string, readonly seq: number, readonly eventType: string, readonly version: number, readonly issues: string) {
    super(`run ${runId}, event ${seq} (${eventType}, version ${version}) cannot be read: ${issues}`);
  }
}

export class ConfigError extends DagentError {}

/** The message of any thrown value, for logs and tool results. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

import { ConfigError, DagentError } from '../errors.js';

/**
 * Failures of a model call. The retry policy reads `retryable` and `retryAfterMs`;
 * the agent turns `ContextOverflowError` into compaction, never into a blind retry.
 */
export class ModelError extends DagentError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    fields: { provider: string; status?: number; retryable?: boolean; retryAfterMs?: number; cause?: unknown },
  ) {
    super(message, { exitCode: 1, cause: fields.cause });
    this.provider = fields.provider;
    this.status = fields.status;
    this.retryable = fields.retryable ?? false;
    this.retryAfterMs = fields.retryAfterMs;
  }
}

/** The prompt does not fit the model's context window. Compact, then retry once. */
export class ContextOverflowError extends ModelError {
  constructor(message: string, fields: { provider: string; status?: number; cause?: unknown }) {
    super(message, { ...fields, retryable: false });
  }
}

/** The provider asked us to wait longer than we are willing to (Retry-After beyond the cap). */
export class RateLimitError extends ModelError {}

/** A stream ended before the provider said it was finished; partial tool calls are discarded. */
export class StreamInterruptedError extends ModelError {}

/** Authentication, bad request and other failures a retry cannot fix. */
export class ModelRequestError extends ModelError {}

/** The scripted provider has no turn left for an agent. */
export class ScriptExhaustedError extends ModelError {
  constructor(readonly agent: string, file: string) {
    super(`scripted model ${file}: no turn left for agent "${agent}"`, { provider: 'scripted' });
  }
}

/** A `--model` value that is not `provider:model` with a known provider. */
export class InvalidModelIdError extends ConfigError {
  constructor(readonly modelId: string, reason: string) {
    super(`invalid model id "${modelId}": ${reason}`);
  }
}

/** A hosted provider was chosen but its API key is not in the environment. */
export class MissingApiKeyError extends ConfigError {
  constructor(readonly provider: string, readonly variable: string) {
    super(`${provider} needs an API key: set ${variable} (or pass an apiKey in the configuration)`);
  }
}

/** A scripted model file that cannot be read or does not match the format. */
export class ScriptFileError extends ConfigError {
  constructor(readonly file: string, readonly problem: string) {
    super(`scripted model ${file}: ${problem}`);
  }
}

/** A connection that never opened: nothing to retry into, the URL or the server is wrong. */
const UNREACHABLE = /(\S+: cannot reach \S+): (?:ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ENETUNREACH)\b/;
/** The provider refused the key (`modelErrorFromHttp` for 401 and 403). */
const UNAUTHORIZED = /\S+ 40[13]: (?:[^()\n]*\(check [A-Z0-9_]+\)|[^()\n;]*)/;

/**
 * Whether a model failure's text (an error message, or an agent outcome's detail that quotes one)
 * is about the user's environment rather than the work: the server cannot be reached, or it
 * refused the key. Returns the one line that says so, or undefined.
 */
export function environmentModelFailure(text: string): string | undefined {
  const unreachable = UNREACHABLE.exec(text);
  if (unreachable !== null) return `${unreachable[1]} (connection refused or host unknown: check --base-url and that the server runs)`;
  const unauthorized = UNAUTHORIZED.exec(text);
  if (unauthorized !== null) return unauthorized[0].trim();
  return undefined;
}

/** A request carries images the model cannot take, or whose bytes were never loaded. */
export class ImagesNotAcceptedError extends ModelError {
  constructor(provider: string, readonly model: string, readonly paths: readonly string[]) {
    super(
      `${provider}:${model} does not accept images (${paths.join(', ')}): use a model that does (e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5), declare it under "images.models" in .dagent/config.json, or remove the @ reference`,
      { provider },
    );
  }
}

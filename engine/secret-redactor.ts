import { DagentError } from './errors.js';
import { base64Spans, replaceSpans, shapeSpans, valueSpans } from './secret-scan.js';
import { SHORTEST_SHAPE_CHARS } from './secret-shapes.js';

/**
 * Removes secrets from text before it is stored: the values of the keys this process was given
 * (provider keys, tokens in the environment) as written, JSON-escaped and base64-encoded; the
 * shapes common keys have whatever their value (secret-shapes.ts: Stripe, OpenAI, Anthropic,
 * DeepSeek, GitHub, GitLab, Hugging Face, npm, AWS, Slack, Google, Azure, JWTs, PEM private keys,
 * `Bearer`/`Basic` credentials, passwords in URLs, `*_PASSWORD=`-style assignments); and base64
 * runs whose decoded bytes hold any of these. A secret becomes `[REDACTED]`; a label (`Bearer `,
 * `AccountKey=`, `postgres://user:`) stays so the text still reads.
 *
 * The scan is linear in the input and keeps no more than the output (secret-scan.ts); a value
 * longer than `MAX_REDACTED_CHARS` is refused with `OversizedValueError` rather than stored.
 */
export interface SecretRedactor {
  /** `text` with every secret replaced; the same string when it holds none. */
  redactText(text: string): string;
  /** `bytes` with every secret replaced (secrets are ASCII, so other bytes are kept as they are); the same buffer when it holds none. */
  redactBytes(bytes: Buffer): Buffer;
}

export const REDACTED = '[REDACTED]';

/** Configured values shorter than this are not treated as secrets: redacting "test" everywhere would garble the log. */
export const MIN_SECRET_CHARS = 8;

/** The longest value the store redacts and writes (64 Mi characters): a larger one is refused, never stored unredacted. */
export const MAX_REDACTED_CHARS = 64 * 1024 * 1024;

/** A value too large to redact: refused before anything is written. */
export class OversizedValueError extends DagentError {
  constructor(readonly chars: number) {
    super(`a value of ${(chars / 1024 / 1024).toFixed(1)} MiB is larger than the ${MAX_REDACTED_CHARS / 1024 / 1024} MiB the log accepts; nothing was written (keep large content in files, not in plans or messages)`);
  }
}

/** Parts of an environment variable's name that make its value a secret (`GITHUB_PAT`, `DB_PASS`, `NPM_AUTH_TOKEN`, …). */
const SECRET_NAME_PARTS = new Set(['KEY', 'APIKEY', 'TOKEN', 'SECRET', 'SECRETS', 'PASSWORD', 'PASSWD', 'PASS', 'PASSPHRASE', 'PWD', 'PAT', 'CREDENTIAL', 'CREDENTIALS', 'AUTH', 'PRIVATE', 'SIGNATURE', 'COOKIE', 'DSN']);
/** Last parts that name something about a secret that is not one (`SSH_AUTH_SOCK`, `PASSWORD_STORE_DIR`, `GITHUB_CLIENT_ID`). */
const NOT_SECRET_LAST_PARTS = new Set(['SOCK', 'DIR', 'FILE', 'PATH', 'HOST', 'PORT', 'USER', 'USERNAME', 'NAME', 'ID', 'TYPE', 'MODE', 'REGION', 'URL_PATH', 'LENGTH', 'TTL']);

/** Whether an environment variable's name says its value is a secret. */
export function isSecretName(name: string): boolean {
  const parts = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter((part) => part !== '');
  if (parts.length === 0 || NOT_SECRET_LAST_PARTS.has(parts.at(-1)!)) return false;
  if (parts.length === 1 && parts[0] === 'PWD') return false; // the working directory
  return parts.some((part) => SECRET_NAME_PARTS.has(part) || /^(?:API)?KEY\d*$|^TOKEN\d*$/.test(part));
}

/** Values longer than this are not keys (a certificate bundle, a long `PATH`): looked at for shape only up to here. */
const MAX_ENVIRONMENT_SECRET_CHARS = 16 * 1024;

/**
 * The values of the environment's secrets, collected at start for the redactor: each variable
 * whose name says it is one (`*_API_KEY`, `*_TOKEN`, `*_PAT`, `*_PASS`, …) or whose value has the
 * shape of a key, long enough to be one.
 */
export function secretsFromEnvironment(env: Readonly<Record<string, string | undefined>>): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const trimmed = value.trim();
    if (trimmed.length < MIN_SECRET_CHARS || trimmed.length > MAX_ENVIRONMENT_SECRET_CHARS) continue;
    if (isSecretName(name) || shapeSpans(trimmed).length > 0) values.push(trimmed);
  }
  return values;
}

/**
 * The secrets a config names for the services it reaches: every header value and every
 * secret-named (or key-shaped) environment value of its MCP servers, long enough to be a key.
 */
export function secretsFromConfig(config: { readonly mcpServers?: Readonly<Record<string, { readonly headers?: Readonly<Record<string, string>>; readonly env?: Readonly<Record<string, string>> }>> }): string[] {
  const values: string[] = [];
  for (const server of Object.values(config.mcpServers ?? {})) {
    for (const value of Object.values(server.headers ?? {})) {
      // `Bearer abc…`: the credential is what follows the scheme.
      const credential = value.trim().replace(/^(?:Bearer|Basic|Token)\s+/i, '');
      if (credential.length >= MIN_SECRET_CHARS) values.push(credential);
    }
    values.push(...secretsFromEnvironment(server.env ?? {}));
  }
  return values;
}

/** A redactor for `secrets` (configured key values) and the common key shapes. */
export function createSecretRedactor(secrets: readonly string[] = []): SecretRedactor {
  const values = configuredForms(secrets);
  const shortest = Math.min(SHORTEST_SHAPE_CHARS, ...values.map((value) => value.length));
  const holdsSecret = (decoded: string): boolean => valueSpans(decoded, values).length > 0 || shapeSpans(decoded).length > 0;
  const redactText = (text: string): string => {
    if (text.length < shortest) return text;
    if (text.length > MAX_REDACTED_CHARS) throw new OversizedValueError(text.length);
    const spans = [...valueSpans(text, values), ...shapeSpans(text), ...base64Spans(text, holdsSecret)];
    return replaceSpans(text, spans, REDACTED);
  };
  return {
    redactText,
    redactBytes(bytes) {
      // latin1 maps each byte to one character and back, so non-ASCII bytes survive untouched.
      const text = bytes.toString('latin1');
      const redacted = redactText(text);
      return redacted === text ? bytes : Buffer.from(redacted, 'latin1');
    },
  };
}

/** Texts of the shapes a run's events hold: prose with paths, code, JSON, a URL, an assignment, base64. */
const WARM_TEXTS = [
  'Read src/a.ts and report what it exports.\n',
  '// a comment\nexport const x = 1;\n',
  '{"path":"src/a.ts","content":"x"}',
  'see https://example.org/a?b=c and user@host',
  'API_KEY = value123 Bearer abc.def.ghi',
  'aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=',
];

/**
 * Runs the secret shapes' patterns over a few texts of each kind a run's events hold: a pattern is
 * compiled at its first match attempt, ~2 ms in all that the first appends of a run would pay (the
 * patterns are shared by every redactor). For time a command waits anyway (`warmNodePrompts`).
 */
export function warmSecretShapes(): void {
  const redactor = createSecretRedactor();
  for (const text of WARM_TEXTS) redactor.redactText(text);
}

/**
 * Each value as written, as it appears inside a JSON string, and base64-encoded (standard and
 * URL-safe, at each of the three alignments it can have inside a longer encoded text), longest
 * first.
 */
function configuredForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    const value = secret.trim();
    if (value.length < MIN_SECRET_CHARS) continue;
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
    for (const encoded of base64Forms(value)) if (encoded.length >= MIN_SECRET_CHARS) forms.add(encoded);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** The characters of `value`'s base64 that do not depend on the bytes around it, for each alignment. */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms: string[] = [];
  for (const offset of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').replace(/=+$/, '');
    const head = offset === 0 ? 0 : offset + 1;
    const tail = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    const core = encoded.slice(head, tail);
    forms.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
}

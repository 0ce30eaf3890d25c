/**
 * Removes secrets from text before it is stored: the values of the keys this process was given
 * (provider keys, tokens in the environment), and the shapes common keys have whatever their
 * value (OpenAI and Anthropic `sk-…`, GitHub `ghp_…`, AWS `AKIA…`, Slack `xox…`, Google `AIza…`,
 * `Bearer …` tokens, PEM private keys). A secret becomes `[REDACTED]`; a bearer token keeps its
 * `Bearer ` prefix so the text still reads.
 *
 * Every expression here is linear in the input (bounded repetitions, no nested quantifiers), so
 * redaction of a large tool output or snapshot cannot stall a write.
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

const KEY_SHAPES: readonly string[] = [
  // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-api03-…), DeepSeek and other sk- keys.
  String.raw`\bsk-[A-Za-z0-9_-]{20,}`,
  // GitHub tokens: personal, OAuth, user-to-server, server-to-server, refresh; fine-grained PATs.
  String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
  // AWS access key ids.
  String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
  // Slack tokens.
  String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,}`,
  // Google API keys.
  String.raw`\bAIza[0-9A-Za-z_-]{35}`,
  // PEM private keys, whole; or from the header on when the end was cut off.
  String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:[\s\S]{0,20000}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|[A-Za-z0-9+/=\\\r\n\t ]*)`,
];

/** `Bearer <token>`: the token is redacted, the word kept. */
const BEARER = String.raw`\b(Bearer[ \t]+)[A-Za-z0-9._~+/-]{16,}=*`;

/**
 * The shortest text any shape above can match (a Slack token: `xoxb-` and 10 more characters).
 * Shorter texts (ids, statuses, small payloads: most values of the log's hot path) skip the scan.
 */
const SHORTEST_KEY_SHAPE_CHARS = 15;

/**
 * Env variable names whose values are secrets: the providers' keys and the usual token names.
 * `secretsFromEnvironment` collects them for `createSecretRedactor`.
 */
const SECRET_ENV_NAME = /(?:^|_)(?:API_KEY|APIKEY|ACCESS_KEY|SECRET|SECRET_KEY|SECRET_ACCESS_KEY|TOKEN|AUTH_TOKEN|PASSWORD|PASSWD|PRIVATE_KEY)$/i;

/** The values of the environment's secret variables (`*_API_KEY`, `*_TOKEN`, `*_SECRET`, …), long enough to be keys. */
export function secretsFromEnvironment(env: Readonly<Record<string, string | undefined>>): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !SECRET_ENV_NAME.test(name)) continue;
    const trimmed = value.trim();
    if (trimmed.length >= MIN_SECRET_CHARS) values.push(trimmed);
  }
  return values;
}

/** A redactor for `secrets` (configured key values) and the common key shapes. */
export function createSecretRedactor(secrets: readonly string[] = []): SecretRedactor {
  const values = configuredForms(secrets);
  const shapes = new RegExp(`${BEARER}|${KEY_SHAPES.join('|')}`, 'g');
  const shortest = Math.min(SHORTEST_KEY_SHAPE_CHARS, ...values.map((value) => value.length));
  const redactText = (text: string): string => {
    if (text.length < shortest) return text;
    let result = text;
    for (const value of values) if (result.includes(value)) result = result.split(value).join(REDACTED);
    return result.replace(shapes, (_match, bearer: string | undefined) => (bearer === undefined ? REDACTED : `${bearer}${REDACTED}`));
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

/** Each value as written, and as it appears inside a JSON string, longest first (a value containing another is replaced whole). */
function configuredForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    const value = secret.trim();
    if (value.length < MIN_SECRET_CHARS) continue;
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * The shapes secrets take in text, as data: each a start found by a bounded expression (no
 * unbounded repetition, so no expression can backtrack over or overflow on a large input) and a
 * completion that extends the match over the rest of the secret with a plain character loop.
 * `scanSecrets` (secret-scan.ts) runs them in one pass, in time linear in the input.
 */

/** Where a completed secret lies in the text: `from` (inclusive) to `to` (exclusive). */
export interface SecretSpan {
  readonly from: number;
  readonly to: number;
}

/**
 * What a shape's completion decided at one start: the span to redact (the scan goes on after it, or
 * from `next` when the span may cover the start of another secret), or only where to look next.
 */
export type ShapeOutcome = (SecretSpan & { readonly next?: number }) | { readonly resumeAt: number };

export interface SecretShape {
  /** A short name for tests and comments. */
  readonly name: string;
  /** The start, a regular-expression source with bounded repetitions only. */
  readonly start: string;
  readonly caseInsensitive?: boolean;
  /** Given the start's match at `index` ending at `end`, the span to redact or where to resume. */
  readonly complete: (text: string, index: number, end: number, scan: ScanMemo) => ShapeOutcome;
}

/** Positions found once per scan so that no completion looks ahead over the same text twice. */
export interface ScanMemo {
  /** The first index at or after `from` where `needle` starts, or -1; amortised over a scan. */
  nextIndexOf(needle: string, from: number): number;
}

const ALNUM = /[A-Za-z0-9]/;
const TOKEN = /[A-Za-z0-9_-]/;
const TOKEN_DOT = /[A-Za-z0-9._~+/=-]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;
/** What follows `-----BEGIN … PRIVATE KEY-----` when the end was cut off: base64 lines, also as JSON escapes (`\n`). */
const PEM_BODY = /[A-Za-z0-9+/=\\\r\n\t ]/;
/** The value of an assignment: printable ASCII up to whitespace, a quote, a backslash (a JSON escape) or a separator. */
const ASSIGNED_VALUE = /[^\s"'`\\,;&<>\x00-\x1f\x7f-\uffff]/;
/** A password in a URL: up to the `@` that ends the userinfo. */
const URL_PASSWORD = /[^\s/@"'`\\<>\x00-\x1f\x7f-\uffff]/;

/** The end of the run of `chars` that starts at `from`. */
export function runEnd(text: string, from: number, chars: RegExp, limit = text.length): number {
  let index = from;
  while (index < limit && chars.test(text[index]!)) index += 1;
  return index;
}

/** A key whose start names it: the redaction covers the start and every key character after it. */
function prefixed(name: string, start: string, rest: RegExp = TOKEN): SecretShape {
  return { name, start, complete: (text, index, end) => ({ from: index, to: runEnd(text, end, rest) }) };
}

/** A value after a word that names it (`Bearer `, `AccountKey=`): the word stays, the value goes. */
function afterLabel(name: string, start: string, value: RegExp, minChars: number, caseInsensitive = false): SecretShape {
  return {
    name,
    start,
    caseInsensitive,
    complete: (text, _index, end) => {
      const from = text.startsWith('\\"', end) ? end + 2 : text[end] === '"' || text[end] === "'" ? end + 1 : end;
      const to = runEnd(text, from, value);
      return to - from >= minChars && !text.startsWith('[REDACTED]', from) ? { from, to } : { resumeAt: Math.max(end, to) };
    },
  };
}

const BEGIN_PEM = String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`;
const END_PEM = new RegExp(String.raw`-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`, 'y');

/** A PEM private key, whole; or from the header on when its end was cut off. */
const PEM: SecretShape = {
  name: 'PEM private key',
  start: BEGIN_PEM,
  complete: (text, index, end, scan) => {
    const close = scan.nextIndexOf('-----END ', end);
    if (close >= 0) {
      END_PEM.lastIndex = close;
      if (END_PEM.test(text)) return { from: index, to: END_PEM.lastIndex };
    }
    // The body of a cut-off key may run into what follows it: look for other secrets from its header on.
    return { from: index, to: runEnd(text, end, PEM_BODY), next: end };
  },
};

/** A JSON Web Token: three base64url parts, the first two JSON objects (`eyJ…`). */
const JWT: SecretShape = {
  name: 'JSON Web Token',
  start: String.raw`(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4}`,
  complete: (text, index, end) => {
    const header = runEnd(text, end, TOKEN);
    if (text[header] !== '.' || !text.startsWith('eyJ', header + 1)) return { resumeAt: header };
    const payload = runEnd(text, header + 4, TOKEN);
    if (text[payload] !== '.') return { resumeAt: payload };
    return { from: index, to: runEnd(text, payload + 1, TOKEN) };
  },
};

/** `scheme://user:password@host`: the password goes, the rest of the address stays. */
const URL_USERINFO: SecretShape = {
  name: 'password in a URL',
  start: String.raw`(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@"'\\<>]{0,256}:`,
  complete: (text, _index, end) => {
    const to = runEnd(text, end, URL_PASSWORD);
    return text[to] === '@' && to > end && !text.startsWith('[REDACTED]', end) ? { from: end, to } : { resumeAt: text.indexOf('://', _index) + 3 };
  },
};

/** `Basic <base64 of user:password>`: redacted only when the value decodes to a `user:password` pair. */
const BASIC_AUTH: SecretShape = {
  name: 'Basic credentials',
  start: String.raw`\bBasic[ \t]{1,8}[A-Za-z0-9+/]{8}`,
  complete: (text, index, end) => {
    const from = runEnd(text, index + 'Basic'.length, /[ \t]/);
    const to = runEnd(text, end, BASE64_CHAR);
    return Buffer.from(text.slice(from, to), 'base64').toString('latin1').includes(':') ? { from, to } : { resumeAt: to };
  },
};

/** Names a secret's value goes by in an assignment (`.env`, shell, YAML): `DB_PASSWORD=…`, `GITHUB_PAT: …`. */
const SECRET_NAME_WORDS = String.raw`(?:PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH|_PAT|_PASS|_PWD)`;

/**
 * The common key shapes, the values of labelled credentials and passwords in URLs. Fake examples of
 * each are in tests/engine/secret-redactor.test.ts.
 */
export const SECRET_SHAPES: readonly SecretShape[] = [
  PEM,
  JWT,
  URL_USERINFO,
  BASIC_AUTH,
  afterLabel('Bearer token', String.raw`\bBearer[ \t]{1,8}`, TOKEN_DOT, 16),
  // Stripe secret and restricted keys.
  prefixed('Stripe key', String.raw`\b[sr]k_(?:live|test)_[A-Za-z0-9]{16}`, ALNUM),
  // OpenAI (sk-, sk-proj-), Anthropic (sk-ant-api03-…), DeepSeek and other sk- keys.
  prefixed('sk- key', String.raw`\bsk-[A-Za-z0-9_-]{20}`),
  // GitHub: personal, OAuth, user-to-server, server-to-server, refresh; fine-grained PATs.
  prefixed('GitHub token', String.raw`\bgh[pousr]_[A-Za-z0-9]{20}`, ALNUM),
  prefixed('GitHub fine-grained token', String.raw`\bgithub_pat_[A-Za-z0-9_]{20}`, /[A-Za-z0-9_]/),
  prefixed('GitLab token', String.raw`\bgl(?:pat|dt|rt|ptt|cbt)-[A-Za-z0-9_-]{20}`),
  prefixed('Hugging Face token', String.raw`\bhf_[A-Za-z0-9]{30}`, ALNUM),
  prefixed('npm token', String.raw`\bnpm_[A-Za-z0-9]{36}`, ALNUM),
  prefixed('AWS access key id', String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, /(?!)/),
  prefixed('Slack token', String.raw`\bxox[abposre]-[A-Za-z0-9-]{10}`, /[A-Za-z0-9-]/),
  prefixed('Google API key', String.raw`\bAIza[0-9A-Za-z_-]{35}`),
  afterLabel('AWS secret access key', String.raw`aws_?secret_?access_?key[\\"']{0,2}[ \t]{0,8}[:=][ \t]{0,8}`, /[A-Za-z0-9/+=]/, 40, true),
  afterLabel('Azure account key', String.raw`\b(?:AccountKey|SharedAccessKey)=`, BASE64_CHAR, 20, true),
  afterLabel('Azure shared access signature', String.raw`\bSharedAccessSignature=`, ASSIGNED_VALUE, 20, true),
  afterLabel('signature in a SAS URL', String.raw`[?&]sig=`, /[A-Za-z0-9%+/=]/, 20),
  afterLabel('secret assignment', String.raw`(?<![A-Za-z0-9_])[A-Z0-9_]{0,40}${SECRET_NAME_WORDS}(?:_[A-Z0-9_]{0,20})?[\\"']{0,2}[ \t]{0,4}[=:][ \t]{0,4}`, ASSIGNED_VALUE, 6),
  afterLabel(
    'quoted secret field',
    String.raw`(?<![A-Za-z0-9_])(?:password|passwd|secret|token|api_?key|access_?token|refresh_?token|client_?secret|private_?key)[\\"']{1,2}[ \t]{0,4}[=:][ \t]{0,4}`,
    ASSIGNED_VALUE,
    6,
    true,
  ),
  afterLabel('password parameter', String.raw`(?<![A-Za-z0-9_])(?:password|passwd|pwd)=`, ASSIGNED_VALUE, 6, true),
];

/** The shortest text any shape can match (`Bearer ` and a 16-character token is longer; a Slack token is 15). */
export const SHORTEST_SHAPE_CHARS = 12;

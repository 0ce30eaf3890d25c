import { DatabaseError } from '../errors.js';

/** Errors of the network or the server's door (SQLSTATE class 28, 3D000): the URL or the server is wrong, not dagent's work. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);
const REFUSED_CODES: Readonly<Record<string, string>> = {
  '28P01': 'the password was refused',
  '28000': 'the server refused the login',
  '3D000': 'the database does not exist',
};

/** A `postgres://` URL as it may be shown: its password replaced by `***`. */
export function redactedDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
  }
}

/**
 * A PostgreSQL server that cannot be reached or refuses the connection: one `DatabaseError`
 * (exit 2) naming the database (password hidden) and what to do. Other errors come back as they are.
 */
export function describePostgresError(error: unknown, url: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error;
  const shown = redactedDatabaseUrl(url);
  const detail = (error as { message?: unknown }).message;
  const reason = typeof detail === 'string' && detail !== '' ? detail : code;
  if (UNREACHABLE_CODES.has(code)) {
    return new DatabaseError(`cannot reach the PostgreSQL database ${shown} (${reason}): start the server, or name another database with --db URL or DAGENT_DB (a SQLite file path works too)`, shown, error);
  }
  const refused = REFUSED_CODES[code];
  if (refused !== undefined) {
    return new DatabaseError(`cannot open the PostgreSQL database ${shown}: ${refused} (${reason}); check the user, password and database name in --db or DAGENT_DB`, shown, error);
  }
  return error;
}

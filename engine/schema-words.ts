/** How a schema's expected type reads to a user ("must be a string"). */
export const EXPECTED_TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

/** A value as an error message shows it: a string quoted (long ones cut), a number as it is, anything else by its kind. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return JSON.stringify(value.length > MAX_SHOWN_CHARS ? `${value.slice(0, MAX_SHOWN_CHARS)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `a ${typeof value}`;
}

const MAX_SHOWN_CHARS = 60;

/** The value at `path` in a raw document (undefined where the path leads nowhere): what a schema issue was about. */
export function valueAt(path: readonly PropertyKey[], document: unknown): unknown {
  let value = document;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * ` (did you mean "dependsOn"?)` for `depends_on`, `depends-on`, `DependsOn`, `write`: the field of
 * `known` with the same letters and digits, or one s more or fewer; '' when none is.
 */
export function meantField(key: string, known: readonly string[]): string {
  const simplified = simplify(key);
  const match = known.find((field) => {
    const candidate = simplify(field);
    return candidate === simplified || candidate === `${simplified}s` || `${candidate}s` === simplified;
  });
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}

function simplify(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}


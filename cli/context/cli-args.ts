/** A flag's value that cannot be used: one line, exit 2 (as a yargs `coerce` error). */
export class ArgumentError extends Error {
  readonly exitCode = 2;
}

/** `coerce` for a flag that takes a whole number of at least `min` (`-j 0`, `--since abc` are refused). */
export function integerAtLeast(flag: string, min: number): (value: unknown) => number | undefined {
  return (value) => {
    if (value === undefined) return undefined;
    const number = typeof value === 'number' ? value : Number(value);
    if (!Number.isInteger(number) || number < min) throw new ArgumentError(`${flag} must be a whole number of at least ${min}, not "${String(value)}"`);
    return number;
  };
}

/** A coerce for a flag that takes an amount above zero (`--max-cost 0.5`); a clear error for anything else. */
export function positiveNumber(flag: string): (value: unknown) => number | undefined {
  return (value) => {
    if (value === undefined) return undefined;
    const number = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(number) || number <= 0) throw new ArgumentError(`${flag} must be a number above 0, not "${String(value)}"`);
    return number;
  };
}

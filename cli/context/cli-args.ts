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

/** A tiny test runner (no dependencies, so the tests run wherever `tsc` does). */
declare const process: { exitCode?: number };
declare const console: { log(text: string): void };

const tests: { name: string; run: () => void }[] = [];

export function test(name: string, run: () => void): void {
  tests.push({ name, run });
}

export function equal<T>(actual: T, expected: T, what = 'value'): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

/** Runs every registered test; a failure sets the exit code. */
export function runAll(): void {
  let failed = 0;
  for (const { name, run } of tests) {
    try {
      run();
      console.log(`ok   ${name}`);
    } catch (error) {
      failed += 1;
      console.log(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  console.log(`${tests.length - failed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

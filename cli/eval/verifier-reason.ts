/** A line that names what failed: `AssertionError [ERR_ASSERTION]: …`, `Error: Cannot find module …`, `FAIL src/a.test.ts`, `✗ 2 tests failed`. */
const ERROR_LINE = /\b(?:\w*Error|\w*Exception|error|errors|fail|failed|failure|FAIL|cannot|can't|not found|no such file|expected)\b|✗/i;
/** Stack frames, the source line a Node error quotes, its caret and its `Require stack:` list. */
const NOISE_LINE = /^(?:at |File "|Traceback |Require stack:|- \/|\^+$|throw\b|node:internal\/)/;
const MAX_REASON_CHARS = 200;

/**
 * Why a verifier failed, in one line: the first line of its stderr (else its stdout) that names
 * an error, past the stack frames and quoted source Node prints before it; else the last line it
 * printed; null when it printed nothing.
 */
export function verifierReason(stdout: string, stderr: string): string | null {
  const [errors, output] = [stderr, stdout].map((text) => text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !NOISE_LINE.test(line)));
  const reason = errors!.find((line) => ERROR_LINE.test(line)) ?? output!.find((line) => ERROR_LINE.test(line)) ?? errors!.at(-1) ?? output!.at(-1);
  if (reason === undefined) return null;
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
}

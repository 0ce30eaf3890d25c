import { z } from 'zod';

/** How much a finding weighs: an `error` stops `approve` and `run` until fixed or allowed. */
export const LINT_LEVELS = ['warning', 'error'] as const;

export type LintLevel = (typeof LINT_LEVELS)[number];

/**
 * A finding of plan lint (a check of the plan against the repository): the one shape the planners
 * produce, the log records with a plan version (`plan/created`, `plan/amended`) and the CLI prints
 * (`show --json` under `lint`). `code` is a lint code (`missing-file`, `scan-failed`, …).
 */
export const lintFindingSchema = z.object({
  level: z.enum(LINT_LEVELS),
  code: z.string(),
  message: z.string(),
  nodeId: z.string().optional(),
  file: z.string().optional(),
  /** The changed symbol a file uses (`src/invoice.ts#Invoice.total`), the line and its code. */
  symbol: z.string().optional(),
  line: z.number().int().optional(),
  text: z.string().optional(),
});

export type LintFinding = Readonly<z.infer<typeof lintFindingSchema>>;

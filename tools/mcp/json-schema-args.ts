import type { ValidateFunction } from 'ajv';
import { z } from 'zod';

/** Builds the argument schema of one tool from its JSON Schema. */
export type JsonSchemaArgs = (schema: unknown) => z.ZodType<Record<string, unknown>>;

interface AjvClasses {
  readonly drafts: readonly (new (options: object) => { compile(schema: object): ValidateFunction })[];
}

/** Loads ajv (draft 2020-12 and draft-07) once MCP servers start, not with every CLI command. */
export async function loadJsonSchemaArgs(): Promise<JsonSchemaArgs> {
  const [{ Ajv2020 }, { Ajv }] = await Promise.all([import('ajv/dist/2020.js'), import('ajv')]);
  const classes: AjvClasses = { drafts: [Ajv2020, Ajv] };
  return (schema) => jsonSchemaArgs(schema, classes);
}

/**
 * A zod schema for a tool's arguments that validates them against the server's own JSON Schema
 * (ajv, draft 2020-12, falling back to draft-07), so the original schema, not the cleaned one the
 * model saw, decides what reaches the server. Each failure becomes an issue at its path.
 */
function jsonSchemaArgs(schema: unknown, classes: AjvClasses): z.ZodType<Record<string, unknown>> {
  const validate = compile(schema, classes);
  return z.record(z.string(), z.unknown()).superRefine((value, context) => {
    if (validate === undefined || validate(value)) return;
    for (const error of validate.errors ?? []) {
      const path = error.instancePath.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
      const missing = (error.params as { missingProperty?: string }).missingProperty;
      context.addIssue({ code: 'custom', path: missing === undefined ? path : [...path, missing], message: describe(error.message, error.params) });
    }
  });
}

function compile(schema: unknown, classes: AjvClasses): ValidateFunction | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const { $schema: _version, ...body } = schema as Record<string, unknown>;
  const options = { strict: false, allErrors: true, validateFormats: false } as const;
  for (const Draft of classes.drafts) {
    try {
      return new Draft(options).compile(body);
    } catch {
      // Try the next draft; a schema neither draft compiles is left to the server to check.
    }
  }
  return undefined;
}

function describe(message: string | undefined, params: unknown): string {
  const allowed = (params as { allowedValues?: unknown[] }).allowedValues;
  const text = message ?? 'is invalid';
  return allowed === undefined ? text : `${text}: ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
}

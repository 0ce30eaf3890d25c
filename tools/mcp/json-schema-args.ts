import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';

/**
 * A zod schema for a tool's arguments that validates them against the server's own JSON Schema
 * (ajv, draft 2020-12, falling back to draft-07), so the original schema, not the cleaned one the
 * model saw, decides what reaches the server. Each failure becomes an issue at its path.
 */
export function jsonSchemaArgs(schema: unknown): z.ZodType<Record<string, unknown>> {
  const validate = compile(schema);
  return z.record(z.string(), z.unknown()).superRefine((value, context) => {
    if (validate === undefined || validate(value)) return;
    for (const error of validate.errors ?? []) {
      const path = error.instancePath.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
      const missing = (error.params as { missingProperty?: string }).missingProperty;
      context.addIssue({ code: 'custom', path: missing === undefined ? path : [...path, missing], message: describe(error.message, error.params) });
    }
  });
}

function compile(schema: unknown): ValidateFunction | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const { $schema: _version, ...body } = schema as Record<string, unknown>;
  const options = { strict: false, allErrors: true, validateFormats: false } as const;
  for (const create of [() => new Ajv2020(options), () => new Ajv(options)]) {
    try {
      return create().compile(body);
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

/** A JSON Schema object, as MCP servers send them and as providers receive them. */
export type JsonSchema = { readonly [key: string]: unknown };

/** The schema a model sees, and what cleaning had to give up (shown in the tool's description). */
export interface CleanedSchema {
  readonly schema: JsonSchema;
  readonly notes: readonly string[];
}

/**
 * Keywords every provider adapter accepts (OpenAI-compatible, DeepSeek, Anthropic, and the
 * stricter Gemini-style subset); everything else is dropped.
 */
const KEPT_KEYWORDS: ReadonlySet<string> = new Set(['type', 'description', 'properties', 'required', 'items', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems']);

const SCALAR_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']);

/**
 * Cleans an MCP tool's input schema into the portable subset: `$ref`s (to `$defs`, `definitions`
 * or any JSON pointer) are inlined, a recursive one cut with a note; `allOf` is merged; `anyOf` /
 * `oneOf` are reduced (a union with null becomes an optional field, enums merge, objects merge,
 * otherwise the first choice stays and the others are named in the description); `type` arrays
 * become one type; `const` becomes a one-value enum; unsupported keywords are dropped. The root is
 * always `{ type: "object", properties }`. Pure; the original schema still validates calls.
 */
export function cleanToolSchema(input: unknown): CleanedSchema {
  const root = isObject(input) ? input : {};
  const notes: string[] = [];
  const cleaned = clean(root, { root, stack: [], notes, path: '' }).schema;
  const schema: Record<string, unknown> = { ...cleaned, type: 'object' };
  if (!isObject(schema.properties)) schema.properties = {};
  return { schema, notes };
}

interface Walk {
  readonly root: JsonSchema;
  readonly stack: readonly string[];
  readonly notes: string[];
  readonly path: string;
}

interface Cleaned {
  readonly schema: JsonSchema;
  /** The value may be null: its property becomes optional. */
  readonly nullable: boolean;
}

function clean(node: unknown, walk: Walk): Cleaned {
  if (!isObject(node)) return { schema: {}, nullable: false };
  if (typeof node.$ref === 'string') return cleanRef(node, node.$ref, walk);
  if (Array.isArray(node.allOf)) return clean(mergeAll([withoutKey(node, 'allOf'), ...node.allOf.map((member) => resolveShallow(member, walk))]), walk);
  const union = Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined;
  if (union !== undefined) return reduceUnion(node, union, walk);
  return cleanPlain(node, walk);
}

function cleanRef(node: JsonSchema, ref: string, walk: Walk): Cleaned {
  const target = resolvePointer(walk.root, ref);
  const siblings = withoutKey(node, '$ref');
  if (target === undefined) {
    walk.notes.push(`${where(walk)}: unresolvable $ref ${ref} (any value is sent on)`);
    return clean(siblings, walk);
  }
  if (walk.stack.includes(ref)) {
    walk.notes.push(`${where(walk)}: recursive $ref ${ref} cut here; send a value of the same shape as its parent`);
    const type = typeof target.type === 'string' && SCALAR_TYPES.has(target.type) ? target.type : 'object';
    return { schema: { type, description: `(recursive ${refName(ref)}: same shape as its parent)` }, nullable: false };
  }
  return clean(mergeAll([target, siblings]), { ...walk, stack: [...walk.stack, ref] });
}

function reduceUnion(node: JsonSchema, members: readonly unknown[], walk: Walk): Cleaned {
  const base = withoutKey(withoutKey(node, 'anyOf'), 'oneOf');
  const cleaned = members.map((member) => clean(member, walk));
  const nullable = cleaned.some((member) => member.nullable);
  const choices = cleaned.filter((member) => !isNullOnly(member)).map((member) => member.schema);
  const own = cleanPlain(base, walk).schema;
  if (choices.length === 0) return { schema: own, nullable };
  if (choices.length === 1) return { schema: mergeDescription({ ...choices[0]!, ...own }, choices[0]!), nullable };
  if (choices.every((choice) => Array.isArray(choice.enum))) {
    const values = [...new Set(choices.flatMap((choice) => choice.enum as unknown[]))];
    const types = [...new Set(choices.map((choice) => choice.type).filter((type) => typeof type === 'string'))];
    return { schema: { ...(types.length === 1 ? { type: types[0] } : {}), ...own, enum: values }, nullable };
  }
  if (choices.every((choice) => choice.type === 'object')) return { schema: { ...mergeObjectChoices(choices), ...own }, nullable };
  const others = choices.slice(1).map(describeChoice).join(', ');
  walk.notes.push(`${where(walk)}: a choice of ${choices.map(describeChoice).join(' | ')} is shown as its first; the others are accepted too`);
  const first = choices[0]!;
  return { schema: { ...first, ...own, description: joinText(own.description ?? first.description, `(also accepts: ${others})`) }, nullable };
}

function cleanPlain(node: JsonSchema, walk: Walk): Cleaned {
  const out: Record<string, unknown> = {};
  let nullable = false;
  const type = node.type;
  if (Array.isArray(type)) {
    const kept = type.filter((entry): entry is string => typeof entry === 'string' && entry !== 'null');
    nullable = type.includes('null');
    if (kept.length > 0) out.type = kept[0];
    if (kept.length > 1) out.description = `(or ${kept.slice(1).join(' or ')})`;
  } else if (type === 'null') {
    nullable = true;
  } else if (typeof type === 'string') {
    out.type = type;
  }
  if ('const' in node) out.enum = [node.const];
  for (const [key, value] of Object.entries(node)) {
    if (!KEPT_KEYWORDS.has(key) || key === 'type') continue;
    if (key === 'properties' || key === 'required' || key === 'items') continue;
    if (key === 'description' && typeof value === 'string') out.description = joinText(value, out.description as string | undefined);
    else out[key] = value;
  }
  if (out.description === undefined && typeof node.title === 'string') out.description = node.title;
  if (isObject(node.properties) || out.type === 'object') cleanProperties(node, out, walk);
  if (node.items !== undefined || out.type === 'array') {
    const items = Array.isArray(node.items) ? node.items[0] : node.items;
    out.items = clean(items ?? {}, { ...walk, path: `${walk.path}[]` }).schema;
    out.type ??= 'array';
  }
  if (Array.isArray(out.enum) && out.enum.includes(null)) {
    out.enum = out.enum.filter((value) => value !== null);
    nullable = true;
    if ((out.enum as unknown[]).length === 0) delete out.enum;
  }
  return { schema: out, nullable };
}

function cleanProperties(node: JsonSchema, out: Record<string, unknown>, walk: Walk): void {
  const properties: Record<string, unknown> = {};
  const optional = new Set<string>();
  for (const [name, property] of Object.entries(isObject(node.properties) ? node.properties : {})) {
    const cleaned = clean(property, { ...walk, path: walk.path === '' ? name : `${walk.path}.${name}` });
    properties[name] = cleaned.schema;
    if (cleaned.nullable) optional.add(name);
  }
  out.type = 'object';
  out.properties = properties;
  const required = (Array.isArray(node.required) ? node.required : []).filter((name): name is string => typeof name === 'string' && name in properties && !optional.has(name));
  if (required.length > 0) out.required = [...new Set(required)];
}

/** Merges `allOf` members (or a `$ref` target with its siblings): properties and `required` add up, other keywords: first wins. */
function mergeAll(members: readonly JsonSchema[]): JsonSchema {
  const merged: Record<string, unknown> = {};
  const properties: Record<string, unknown> = {};
  const required: unknown[] = [];
  for (const member of members) {
    for (const [key, value] of Object.entries(member)) {
      if (key === 'properties' && isObject(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value)) required.push(...value);
      else if (key === 'description' && typeof value === 'string' && typeof merged.description === 'string') merged.description = joinText(merged.description, value);
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.length > 0) merged.required = required;
  return merged;
}

/** `anyOf` of objects: one object with every property; a property is required only when every choice requires it. */
function mergeObjectChoices(choices: readonly JsonSchema[]): JsonSchema {
  const properties: Record<string, unknown> = {};
  for (const choice of choices) Object.assign(properties, isObject(choice.properties) ? choice.properties : {});
  const requiredSets = choices.map((choice) => new Set(Array.isArray(choice.required) ? (choice.required as string[]) : []));
  const required = [...requiredSets[0]!].filter((name) => requiredSets.every((set) => set.has(name)));
  const descriptions = choices.map((choice) => choice.description).filter((text): text is string => typeof text === 'string');
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    description: `One of ${choices.length} shapes${descriptions.length > 0 ? `: ${descriptions.join(' | ')}` : ''}; send the fields of one.`,
  };
}

function resolveShallow(member: unknown, walk: Walk): JsonSchema {
  if (!isObject(member)) return {};
  if (typeof member.$ref !== 'string' || walk.stack.includes(member.$ref)) return member;
  const target = resolvePointer(walk.root, member.$ref);
  return target === undefined ? withoutKey(member, '$ref') : mergeAll([target, withoutKey(member, '$ref')]);
}

function resolvePointer(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith('#')) return undefined;
  const parts = ref.slice(1).split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
  let current: unknown = root;
  for (const part of parts) {
    if (!isObject(current)) return undefined;
    current = current[part];
  }
  return isObject(current) ? current : undefined;
}

/** `{ type: "null" }` or `{ const: null }` after cleaning: nullable, and nothing else to send. */
function isNullOnly(member: Cleaned): boolean {
  return member.nullable && member.schema.type === undefined && member.schema.enum === undefined && member.schema.properties === undefined;
}

function describeChoice(choice: JsonSchema): string {
  if (Array.isArray(choice.enum)) return choice.enum.map((value) => JSON.stringify(value)).join('|');
  return typeof choice.type === 'string' ? choice.type : 'any';
}

function mergeDescription(schema: JsonSchema, from: JsonSchema): JsonSchema {
  return from.description === undefined || schema.description !== undefined ? schema : { ...schema, description: from.description };
}

function joinText(first: unknown, second: string | undefined): string | undefined {
  const parts = [first, second].filter((part): part is string => typeof part === 'string' && part !== '');
  return parts.length === 0 ? undefined : parts.join(' ');
}

function where(walk: Walk): string {
  return walk.path === '' ? '(arguments)' : walk.path;
}

function refName(ref: string): string {
  return ref.split('/').pop() ?? ref;
}

function withoutKey(node: JsonSchema, key: string): JsonSchema {
  const { [key]: _dropped, ...rest } = node;
  return rest;
}

function isObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

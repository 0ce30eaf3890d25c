import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { EXPECTED_TYPE_WORDS, describeValue, meantField, valueAt } from '../schema-words.js';
import { HOOK_EVENT_NAMES } from '../session/event-values.js';

const approvalPolicy = z.enum(['auto', 'suggest', 'never']);

const toolRisk = z.enum(['read', 'write', 'command', 'network']);

/** `web`: hosts web_fetch may reach, its caps, and the web_search provider. */
const webConfig = z.strictObject({
  allowedHosts: z.array(z.string().min(1)).optional(),
  deniedHosts: z.array(z.string().min(1)).optional(),
  maxBytes: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
  /** web_fetch follows redirects to other hosts too (default: only within the same host). */
  crossHostRedirects: z.boolean().optional(),
  searchProvider: z.string().min(1).optional(),
  searchEndpoint: z.url().optional(),
});

/** Shared by both MCP transports: the risk of the server's tools (or of one tool), its call timeout, off switch. */
const mcpServerCommon = {
  risk: toolRisk.optional(),
  toolRisk: z.record(z.string(), toolRisk).optional(),
  timeoutMs: z.number().int().positive().optional(),
  startupTimeoutMs: z.number().int().positive().max(600_000).optional(),
  disabled: z.boolean().optional(),
};

/** `mcpServers`, in the convention of other MCP clients: `{ command, args, env }` (stdio) or `{ url, headers }` (streamable HTTP). */
const mcpServersConfig = z.record(
  z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'an MCP server name is 1-40 letters, digits, _ or -'),
  z.union([
    z.object({ type: z.literal('stdio').optional(), command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional(), cwd: z.string().optional(), ...mcpServerCommon }),
    z.object({ type: z.enum(['http', 'streamable-http']).optional(), url: z.url(), headers: z.record(z.string(), z.string()).optional(), ...mcpServerCommon }),
  ]),
);

/** One hook: a matcher (a regular expression over the whole tool name or node id), a shell command, its time limit. */
const hookSpec = z.strictObject({
  matcher: z
    .string()
    // `*` matches every one, as empty does (`hookMatches`); anything else is a regular expression.
    .superRefine((value, context) => {
      const problem = value === '*' ? undefined : regExpProblem(value);
      if (problem !== undefined) context.addIssue({ code: 'custom', message: `matcher is not a valid regular expression (${problem}); \`*\` or no matcher matches every one` });
    })
    .optional(),
  command: z.string().min(1),
  timeoutMs: z.number().int().positive().max(600_000).optional(),
});

/** `hooks`: commands run at moments of a run (`PreToolUse`, `PostToolUse`, `NodeStart`, `NodeEnd`, `PreCompact`, `RunEnd`); see docs/hooks.md. */
const hooksConfig = z.strictObject(Object.fromEntries(HOOK_EVENT_NAMES.map((name) => [name, z.array(hookSpec).optional()])) as Record<(typeof HOOK_EVENT_NAMES)[number], z.ZodOptional<z.ZodArray<typeof hookSpec>>>);

/** Why `value` is not a regular expression, in the engine's words; undefined when it is one. */
function regExpProblem(value: string): string | undefined {
  try {
    new RegExp(value);
    return undefined;
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, '');
  }
}

/**
 * dagent's settings, as the config files, the environment and the flags give them. Every key is
 * known: a misspelt one is an error, not a setting silently ignored.
 */
export const configSchema = z.strictObject({
  model: z.string().optional(),
  plannerModel: z.string().optional(),
  summarizerModel: z.string().optional(),
  /**
   * Small-model routing: plan nodes marked `simple` that name no model, and compaction summaries
   * (when `summarizerModel` is unset), run on this model; `run`/`resume --no-routing` turns it off.
   */
  smallModel: z.string().optional(),
  /**
   * Minutes the warm language service (member queries of `scan` and the plan lint) stays without a
   * query before it exits; 0 never starts one (each command loads TypeScript itself). Default 10.
   */
  languageServiceIdleMinutes: z.number().nonnegative().max(1_440).optional(),
  baseUrl: z.string().optional(),
  db: z.string().optional(),
  approval: approvalPolicy.optional(),
  /** Approval policy per tool name, e.g. `{ "run_command": "never" }`. */
  toolApproval: z.record(z.string(), approvalPolicy).optional(),
  concurrency: z.number().int().positive().optional(),
  schedule: z.enum(['eager', 'batch']).optional(),
  contextWindows: z.record(z.string(), z.number().int().positive()).optional(),
  prices: z.record(z.string(), z.record(z.string(), z.number().nonnegative())).optional(),
  maxSteps: z.number().int().positive().optional(),
  tokenBudget: z.number().int().positive().optional(),
  /**
   * A run's spending cap over its model calls: `maxCostUsd` (priced by `prices`) and `maxTokens`
   * (input + output). A run that reaches it pauses; `run`/`resume --max-cost`/`--max-tokens` override
   * it. A repository's own file may only lower it, trusted or not.
   */
  budget: z.strictObject({ maxCostUsd: z.number().positive().optional(), maxTokens: z.number().int().positive().optional() }).optional(),
  nodeRetries: z.number().int().nonnegative().optional(),
  /** Time budget for the tool calls of one model response, run in parallel (default 90 000). */
  toolBatchTimeoutMs: z.number().int().positive().optional(),
  replan: z
    .strictObject({ threshold: z.number().min(0).max(1).optional(), maxReplans: z.number().int().nonnegative().optional(), review: z.boolean().optional() })
    .optional(),
  lint: z.strictObject({ errors: z.array(z.string()).optional() }).optional(),
  compaction: z
    .strictObject({
      summaryReserve: z.number().int().nonnegative().optional(),
      followUpReserve: z.number().int().nonnegative().optional(),
      softWatermark: z.number().min(0).max(1).optional(),
      /** A summary's key facts (decisions, conventions, lessons) become project memories; true by default. */
      rememberKeyFacts: z.boolean().optional(),
    })
    .optional(),
  /** Models that take over, in order, when a node's model fails in a way they may not share; a role or plan node may list its own. */
  fallbackModels: z.array(z.string().min(1)).optional(),
  roles: z
    .record(z.string(), z.strictObject({ prompt: z.string(), model: z.union([z.string(), z.array(z.string().min(1)).min(1)]).optional(), fallbackModels: z.array(z.string().min(1)).optional() }))
    .optional(),
  web: webConfig.optional(),
  /**
   * `@image` references: `maxBytes` caps one image (default 5 MB); `models` says which
   * `provider:model` families take images, over the built-in table (`true` or `false`).
   */
  images: z.strictObject({ maxBytes: z.number().int().positive().optional(), models: z.record(z.string(), z.boolean()).optional() }).optional(),
  mcpServers: mcpServersConfig.optional(),
  /**
   * A repository's `.dagent/config.json` may only tighten limits (caps and prices) unless this is
   * true in the user's own config file; set in a repository's file, it is ignored.
   */
  allowWorkspaceToLoosenLimits: z.boolean().optional(),
  /**
   * The OS sandbox of commands: `enabled: false` is `--no-sandbox`; `allowHosts` the hosts commands
   * may reach (through a proxy); `env` more variables commands inherit; `readPaths` paths outside
   * the workspace they may read (never write). Like every key but the safe ones, a repository's
   * own file sets it only once trusted (`dagent trust`).
   */
  sandbox: z
    .looseObject({
      enabled: z.boolean().optional(),
      allowHosts: z.array(z.string().min(1)).optional(),
      allowPorts: z.array(z.number().int().min(1).max(65_535)).optional(),
      env: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional(),
      readPaths: z.array(z.string().regex(/^(?:\/|~\/|~$)/, { error: 'each read path must be absolute (/…) or under your home (~/…)' })).optional(),
    })
    .optional(),
  /** How nodes share the workspace: `worktree` (each in its own git worktree, the default in a git repository) or `shared`. */
  isolation: z.enum(['worktree', 'shared']).optional(),
  /**
   * Commands run at moments of a run, in the OS sandbox, in the node's workspace: exit 2 blocks
   * (a tool call, a node), stdout of a `PostToolUse` hook goes to the model. A repository's own
   * hooks run only once it is trusted; the user's and the repository's hooks both run.
   */
  hooks: hooksConfig.optional(),
  /** An isolated node whose change conflicts with changes merged before it: `replan` appends a node that resolves it (the default), `pause` stops the run for the user. */
  onConflict: z.enum(['replan', 'pause']).optional(),
  /** Team mode (`dagent team`): at most `maxNodes` delegated nodes per run, `maxWidth` of them not yet ended at once, hand-offs `maxDepth` deep. */
  team: z.strictObject({ maxNodes: z.number().int().positive().optional(), maxWidth: z.number().int().positive().optional(), maxDepth: z.number().int().positive().optional() }).optional(),
  /** OpenTelemetry traces (configured by the OTEL_* variables): `includeContent` adds model answers, tool arguments and tool results to the spans. */
  telemetry: z.strictObject({ includeContent: z.boolean().optional() }).optional(),
});

export type DagentConfig = z.infer<typeof configSchema>;

/**
 * Keys a repository's own `.dagent/config.json` may set without `dagent trust`: they tune the
 * work, and none lowers safety or sends anything elsewhere. Every other key (models, base URLs,
 * the database, approval policies, roles, and whatever a later key adds) waits for trust.
 */
export const WORKSPACE_SAFE_KEYS: readonly (keyof DagentConfig)[] = [
  'concurrency',
  'schedule',
  'isolation',
  'onConflict',
  'contextWindows',
  'prices',
  'maxSteps',
  'tokenBudget',
  'budget',
  'nodeRetries',
  'toolBatchTimeoutMs',
  'replan',
  'lint',
  'compaction',
  'team',
  'languageServiceIdleMinutes',
];

/** Checks raw settings against the schema; `source` names them in the error, every problem at once. */
export function parseConfig(raw: unknown, source: string): DagentConfig {
  const parsed = configSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => configProblem(issue, raw));
  return fail(problems.length === 1 ? `${source}: ${problems[0]}` : `${source}: ${problems.length} problems: ${problems.join('; ')}`);
}

/** One problem of a settings file, as a user fixes it: the setting's path, what it must be, what it was. */
function configProblem(issue: z.core.$ZodIssue, raw: unknown): string {
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const known = issue.path.length === 0 ? Object.keys(configSchema.shape) : [];
    const keys = issue.keys.map((key) => `${key}${meantField(key, known)}`);
    return `unknown setting${issue.keys.length > 1 ? 's' : ''}${path === '' ? '' : ` in ${path}`}: ${keys.join(', ')}`;
  }
  const value = valueAt(issue.path, raw);
  const where = path || 'config';
  // An MCP server's entry that is neither kind; a name that breaks the naming rule.
  if (issue.code === 'invalid_union' && issue.path[0] === 'mcpServers') return `${where}: needs "command" (a server run over stdio) or "url" (an HTTP server)`;
  if (issue.code === 'invalid_key') return `${where}: ${issue.issues[0]?.message ?? issue.message}`;
  if (issue.code === 'too_big' && issue.origin === 'number') return `${where}: must be at most ${String(issue.maximum)} (got ${describeValue(value)})`;
  if (issue.code === 'invalid_type' && value !== undefined) return `${where}: must be ${EXPECTED_TYPE_WORDS[issue.expected] ?? issue.expected} (got ${describeValue(value)})`;
  if (issue.code === 'invalid_value') return `${where}: must be one of ${issue.values.map(String).join(', ')} (got ${describeValue(value)})`;
  if (issue.code === 'too_small' && issue.origin === 'number') return `${where}: must be ${issue.inclusive === true ? 'at least' : 'greater than'} ${String(issue.minimum)} (got ${describeValue(value)})`;
  return `${where}: ${issue.message}`;
}

function fail(message: string): never {
  throw new ConfigError(message);
}

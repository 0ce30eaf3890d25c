import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../engine/index.js';

const approvalPolicy = z.enum(['auto', 'suggest', 'never']);
const toolRisk = z.enum(['read', 'write', 'command', 'network']);

/** `web`: hosts web_fetch may reach, its caps, and the web_search provider. */
const webConfig = z.strictObject({
  allowedHosts: z.array(z.string().min(1)).optional(),
  deniedHosts: z.array(z.string().min(1)).optional(),
  maxBytes: z.number().int().positive().optional(),
  timeoutMs: z.number().int().positive().optional(),
  searchProvider: z.string().min(1).optional(),
  searchEndpoint: z.url().optional(),
});

/** Shared by both MCP transports: the risk of the server's tools (or of one tool), its call timeout, off switch. */
const mcpServerCommon = {
  risk: toolRisk.optional(),
  toolRisk: z.record(z.string(), toolRisk).optional(),
  timeoutMs: z.number().int().positive().optional(),
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

/** `<workspace>/.dagent/config.json`. Flags override it; environment variables sit in between. */
export const configSchema = z.looseObject({
  model: z.string().optional(),
  plannerModel: z.string().optional(),
  summarizerModel: z.string().optional(),
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
  nodeRetries: z.number().int().nonnegative().optional(),
  /** Time budget for the tool calls of one model response, run in parallel (default 90 000). */
  toolBatchTimeoutMs: z.number().int().positive().optional(),
  replan: z
    .looseObject({ threshold: z.number().min(0).max(1).optional(), maxReplans: z.number().int().nonnegative().optional(), review: z.boolean().optional() })
    .optional(),
  lint: z.looseObject({ errors: z.array(z.string()).optional() }).optional(),
  compaction: z
    .looseObject({ summaryReserve: z.number().int().nonnegative().optional(), followUpReserve: z.number().int().nonnegative().optional(), softWatermark: z.number().min(0).max(1).optional() })
    .optional(),
  roles: z.record(z.string(), z.looseObject({ prompt: z.string(), model: z.string().optional() })).optional(),
  web: webConfig.optional(),
  mcpServers: mcpServersConfig.optional(),
});

export type DagentConfig = z.infer<typeof configSchema>;

export const CONFIG_FILE = join('.dagent', 'config.json');

/** Reads the workspace's config file; a missing file is an empty config, a bad one a clear error. */
export function loadConfigFile(workspace: string): DagentConfig {
  const path = join(workspace, CONFIG_FILE);
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${path}: ${issue.path.join('.') || 'config'}: ${issue.message}`);
  }
  return parsed.data;
}

/** Settings from environment variables: `DAGENT_MODEL`, `DAGENT_DB`, `DAGENT_APPROVAL`, `DAGENT_BASE_URL`, `DAGENT_CONCURRENCY`. */
export function configFromEnv(env: NodeJS.ProcessEnv): DagentConfig {
  const raw: Record<string, unknown> = {};
  if (env.DAGENT_MODEL) raw.model = env.DAGENT_MODEL;
  if (env.DAGENT_PLANNER_MODEL) raw.plannerModel = env.DAGENT_PLANNER_MODEL;
  if (env.DAGENT_DB) raw.db = env.DAGENT_DB;
  if (env.DAGENT_APPROVAL) raw.approval = env.DAGENT_APPROVAL;
  if (env.DAGENT_BASE_URL) raw.baseUrl = env.DAGENT_BASE_URL;
  if (env.DAGENT_CONCURRENCY) raw.concurrency = Number(env.DAGENT_CONCURRENCY);
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`environment variable for ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

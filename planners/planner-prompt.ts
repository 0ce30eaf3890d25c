import { z } from 'zod';
import { NODE_KINDS, PLAN_NODE_KINDS, PROJECT_MEMORY_SECTION_ORDER, planSchema, readBeside, type PromptSection } from '../engine/index.js';

/** The read-only tools the planner may use to look around the workspace. */
export const PLANNER_TOOL_NAMES = ['list_files', 'read_file', 'grep'] as const;

export interface PlannerSectionsOptions {
  /** Whether the planner has the read-only tools; the prompt says how to use them, or that there are none. */
  readonly tools: boolean;
  /** The project memory files' text (AGENTS.md, DAGENT.md, ...), as one static section. */
  readonly projectMemory?: string;
}

/**
 * The planner's static system sections, the same bytes for every request of a planner (plan,
 * repairs and amendments), so the provider's prefix cache keeps hitting: what a plan is, the
 * rules, how to use the tools, the plan document's JSON Schema, then project memory.
 */
export function plannerSystemSections(options: PlannerSectionsOptions): PromptSection[] {
  const sections: PromptSection[] = [
    { id: 'planner', order: 0, text: escapeTemplate(plannerPromptText()) },
    { id: 'planner-tools', order: 10, text: options.tools ? TOOLS_TEXT : NO_TOOLS_TEXT },
    { id: 'plan-schema', order: 20, text: escapeTemplate(`# The plan document's JSON Schema\n\n${planJsonSchemaText()}`) },
  ];
  const memory = options.projectMemory?.trim() ?? '';
  if (memory !== '') sections.push({ id: 'project-memory', order: PROJECT_MEMORY_SECTION_ORDER, text: escapeTemplate(memoryText(memory)) });
  return sections;
}

const TOOLS_TEXT = [
  '# Looking around',
  '',
  `You may use ${PLANNER_TOOL_NAMES.join(', ')} to look at the workspace; nothing else. Read the files the task names first, then what the repository map shows you need: the module that declares what changes, and the files that import it.`,
  'Look enough to plan correctly, not to do the work: the nodes will read the files again. When you know the plan, answer with it and call no more tools.',
].join('\n');

const NO_TOOLS_TEXT = [
  '# Looking around',
  '',
  'You have no tools: plan from the task and the repository map. Where you are unsure what a file holds, start the plan with `read` nodes and let later nodes depend on them.',
].join('\n');

function memoryText(memory: string): string {
  return memory.startsWith('#') ? memory : `# Project memory\n\n${memory}`;
}

/** The plan schema as JSON Schema, input side (fields with defaults are optional), without `$schema`. */
export function planJsonSchemaText(): string {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(planSchema, { io: 'input' }) as Record<string, unknown>;
  return JSON.stringify(schema);
}

/** The system prompt's template syntax must never fire on prompt text. */
function escapeTemplate(text: string): string {
  return text.replace(/\{\{/g, '{\u200b{');
}

let promptText: string | undefined;

/** `planner-prompt.md`, read once, beside this module (or in the source tree when running from `dist/`). */
export function plannerPromptText(): string {
  promptText ??= readBeside(import.meta.url, 'planner-prompt.md').replace('<node-kinds>', nodeKindLines());
  return promptText;
}

/** The kinds of the prompt's node list, from the kinds table: one line each, in the schema's order. */
function nodeKindLines(): string {
  return PLAN_NODE_KINDS.map((kind) => `    - \`${kind}\`: ${NODE_KINDS[kind].description};`).join('\n');
}


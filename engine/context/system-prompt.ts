import { ConfigError } from '../errors.js';
import type { ToolSpec } from '../model/model-provider.js';
import { canonicalJson, contentHash } from '../canonical-json.js';
import { keptByKey } from '../kept-by-key.js';

/** Stable text of the system prompt. Must never carry timestamps, counters or per-step state. */
export interface PromptSection {
  readonly id: string;
  readonly text: string;
  /** Lower comes first; sections of equal order keep their registration order. Default 100. */
  readonly order?: number;
}

/** Dynamic state (working directory, plan position, ...). Enters the history, never the system text. */
export interface ContextProvider {
  readonly id: string;
  provide(): unknown | Promise<unknown>;
}

export type ToolSource = () => readonly ToolSpec[];

/** An immutable picture of everything one step sends besides the history. */
export interface PromptSnapshot {
  readonly system: string;
  readonly systemHash: string;
  readonly tools: readonly ToolSpec[];
  readonly toolsHash: string;
  readonly context: Readonly<Record<string, unknown>>;
}

const VARIABLE = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/**
 * Collects the parts of a model request that are not history. Components register sections,
 * contexts, tools and variables; `assemble()` returns this step's snapshot. The system text is
 * ordered static-first, so the provider's prefix cache keeps hitting: sections, then tools;
 * dynamic state goes to the runtime-context projection, not here.
 */
export class SystemPrompt {
  readonly #sections = new Map<string, { section: PromptSection; index: number }>();
  readonly #contexts = new Map<string, ContextProvider>();
  readonly #toolSources = new Map<string, ToolSource>();
  readonly #variables = new Map<string, string>();
  #registrations = 0;
  /** The system text and hash, kept until a section or variable changes. */
  #systemCache: { readonly text: string; readonly hash: string } | undefined;

  addSection(section: PromptSection): this {
    const previous = this.#sections.get(section.id);
    this.#sections.set(section.id, { section, index: previous?.index ?? this.#registrations++ });
    this.#systemCache = undefined;
    return this;
  }

  removeSection(id: string): this {
    this.#sections.delete(id);
    this.#systemCache = undefined;
    return this;
  }

  addContext(provider: ContextProvider): this {
    this.#contexts.set(provider.id, provider);
    return this;
  }

  removeContext(id: string): this {
    this.#contexts.delete(id);
    return this;
  }

  /** Registers a source of tools under an id; the snapshot lists the sources in registration order, each by name. */
  addTools(id: string, source: ToolSource): this {
    this.#toolSources.set(id, source);
    return this;
  }

  removeTools(id: string): this {
    this.#toolSources.delete(id);
    return this;
  }

  setVariable(name: string, value: string): this {
    this.#variables.set(name, value);
    this.#systemCache = undefined;
    return this;
  }

  async assemble(): Promise<PromptSnapshot> {
    const { text: system, hash: systemHash } = this.#system();
    const { tools, hash: toolsHash } = toolSet([...this.#toolSources.values()].map((source) => source()));
    const context: Record<string, unknown> = {};
    for (const provider of this.#contexts.values()) {
      const value = await provider.provide();
      if (value !== undefined) context[provider.id] = value;
    }
    return Object.freeze({
      system,
      systemHash,
      tools,
      toolsHash,
      context: Object.freeze(context),
    });
  }

  #system(): { readonly text: string; readonly hash: string } {
    if (this.#systemCache === undefined) {
      const text = this.#renderSystem();
      this.#systemCache = { text, hash: contentHash(text) };
    }
    return this.#systemCache;
  }

  #renderSystem(): string {
    const entries = [...this.#sections.values()].sort(
      (a, b) => (a.section.order ?? 100) - (b.section.order ?? 100) || a.index - b.index,
    );
    return entries
      .map(({ section }) => this.#render(section))
      .filter((text) => text.length > 0)
      .join('\n\n');
  }

  #render(section: PromptSection): string {
    return section.text
      .replace(VARIABLE, (_match, name: string) => {
        const value = this.#variables.get(name);
        if (value === undefined) throw new ConfigError(`system prompt section "${section.id}" uses undefined variable {{${name}}}`);
        return value;
      })
      .trim();
  }
}

/** A snapshot's tools, frozen, and the hash of their definitions. */
interface ToolSet {
  readonly tools: readonly ToolSpec[];
  readonly hash: string;
}

/**
 * The tools of the sources' lists, in registration order, each one's tools by name; a tool a later
 * source lists again keeps its first place (with the later definition). Agents that register their
 * shared tools first (the ones every node kind has) send the same leading tool definitions, so
 * siblings with different tool sets still share that part of the cached prefix.
 *
 * Tool specs are immutable values, shared by every node's prompt: the set is collected and hashed
 * once per run for each list of spec objects, not again by every node at every step (it was a
 * locale-aware sort and a hash of the definitions' JSON each time, ~5 % of a wide stage's set-up).
 */
function toolSet(lists: readonly (readonly ToolSpec[])[]): ToolSet {
  return toolSetOf(lists.map((list) => list.map(specId).join(',')).join('|'), lists);
}

/** Tool sets by their lists' spec ids; a run has a few, one per kind of node and tool list. */
const toolSetOf = keptByKey(64, (_ids: string, lists: readonly (readonly ToolSpec[])[]): ToolSet => {
  const byName = new Map<string, ToolSpec>();
  for (const list of lists) {
    for (const tool of [...list].sort((a, b) => a.name.localeCompare(b.name))) byName.set(tool.name, tool);
  }
  const tools = Object.freeze([...byName.values()]);
  return { tools, hash: contentHash(`[${tools.map(specJson).join(',')}]`) };
});

/** A number for each spec object, for `toolSet`'s key. */
function specId(spec: ToolSpec): number {
  let id = specIds.get(spec);
  if (id === undefined) {
    id = nextSpecId++;
    specIds.set(spec, id);
  }
  return id;
}

const specIds = new WeakMap<ToolSpec, number>();
let nextSpecId = 1;

/**
 * A tool spec's canonical JSON, kept per spec: specs are immutable values that every node's prompt
 * shares, so a run's nodes do not each re-serialise the same tool definitions to hash their set.
 * The set's text is the same as `canonicalJson(tools)`.
 */
function specJson(spec: ToolSpec): string {
  let json = specJsons.get(spec);
  if (json === undefined) {
    json = canonicalJson(spec);
    specJsons.set(spec, json);
  }
  return json;
}

const specJsons = new WeakMap<ToolSpec, string>();

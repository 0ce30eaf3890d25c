import { ConfigError } from '../errors.js';
import type { ToolSpec } from '../model/model-provider.js';
import { canonicalJson, contentHash } from '../canonical-json.js';

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
  /** The last tool list's hash, reused while the sources return the same spec objects. */
  #toolsCache: { readonly tools: readonly ToolSpec[]; readonly hash: string } | undefined;

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
    const tools = this.#collectTools();
    const toolsHash = this.#toolsHash(tools);
    const context: Record<string, unknown> = {};
    for (const provider of this.#contexts.values()) {
      const value = await provider.provide();
      if (value !== undefined) context[provider.id] = value;
    }
    return Object.freeze({
      system,
      systemHash,
      tools: Object.freeze(tools),
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

  /** Tool specs are immutable values: the same objects in the same order hash the same. */
  #toolsHash(tools: readonly ToolSpec[]): string {
    const cached = this.#toolsCache;
    if (cached !== undefined && cached.tools.length === tools.length && cached.tools.every((tool, index) => tool === tools[index])) return cached.hash;
    const hash = contentHash(`[${tools.map(specJson).join(',')}]`);
    this.#toolsCache = { tools, hash };
    return hash;
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

  /**
   * Sources in registration order, each one's tools by name; a tool a later source lists again
   * keeps its first place (with the later definition). Agents that register their shared tools
   * first (the ones every node kind has) send the same leading tool definitions, so siblings
   * with different tool sets still share that part of the cached prefix.
   */
  #collectTools(): ToolSpec[] {
    const byName = new Map<string, ToolSpec>();
    for (const source of this.#toolSources.values()) {
      for (const tool of [...source()].sort((a, b) => a.name.localeCompare(b.name))) byName.set(tool.name, tool);
    }
    return [...byName.values()];
  }
}

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

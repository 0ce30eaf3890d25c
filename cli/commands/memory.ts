import { ConfigError, MEMORY_KINDS, MEMORY_SCOPES, formatMemory, visibleJson, visibleText, type Memory, type MemoryKind, type MemoryScope, type MemorySource } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import { integerAtLeast } from '../context/cli-args.js';
import { defineCommand } from '../context/command.js';
import { createMemoryStore } from '../runtime/compose-runtime.js';

const ACTIONS = ['add', 'list', 'search', 'rm'] as const;

/** A memory's line and where it came from; an agent wrote it, so escapes in it are shown, not obeyed. */
function memoryLine(memory: Memory): string {
  return visibleText(`${formatMemory(memory)}${sourceNote(memory.source)}`);
}

/** `  (from compaction c-1 · run r-7f3a · node edit-a)`; nothing for memories stored before sources were kept. */
function sourceNote(source: MemorySource | undefined): string {
  if (source === undefined) return '';
  const origin = source.kind === 'cli' ? 'added with dagent memory add' : source.kind === 'remember' ? 'from remember' : `from compaction ${source.compactionId ?? ''}`.trim();
  const where = [source.runId === undefined ? undefined : `run ${source.runId}`, source.nodeId === undefined ? undefined : `node ${source.nodeId}`].filter((part) => part !== undefined);
  return `  (${[origin, ...where].join(' · ')})`;
}

interface MemoryArgs {
  action: (typeof ACTIONS)[number];
  text?: string[];
  kind?: MemoryKind;
  scope?: MemoryScope;
  limit?: number;
}

export const memoryCommand = defineCommand<MemoryArgs>({
  examples: [
    ['$0 memory add \'tests run with npm test -- --run\'', 'remember a fact for later runs'],
    ['$0 memory search tests', 'memories that mention tests'],
    ['$0 memory add --scope user \'I prefer small commits\'', 'remember a preference in every workspace'],
  ],
  builder: (yargs) =>
    yargs
      .positional('action', { type: 'string', choices: ACTIONS, demandOption: true })
      .positional('text', { type: 'string', array: true, describe: 'the memory (add), the query (search) or the id (rm)' })
      .option('kind', { type: 'string', choices: MEMORY_KINDS, describe: 'preference, convention, lesson, decision or fact' })
      .option('scope', { type: 'string', choices: MEMORY_SCOPES, describe: 'project (default; in this workspace) or user (yours, in every workspace)' })
      .option('limit', { requiresArg: true, coerce: integerAtLeast('--limit', 1), describe: 'most results (list, search)' }),
  async run(context, args) {
    const memory = await createMemoryStore(context);
    const text = (args.text ?? []).join(' ').trim();
    const out = context.io.stdout;
    switch (args.action) {
      case 'add': {
        if (text === '') throw new ConfigError('memory add needs the text to remember');
        const result = await memory.add({ content: text, source: { kind: 'cli' }, ...(args.kind === undefined ? {} : { kind: args.kind }), ...(args.scope === undefined ? {} : { scope: args.scope }) });
        if (context.json) writeLine(out, JSON.stringify(result));
        else writeLine(out, `${result.created ? 'remembered' : 'already known'}: ${memoryLine(result.memory).replace(/^- /, '')}`);
        return 0;
      }
      case 'list': {
        const memories = await memory.list({ ...(args.kind === undefined ? {} : { kind: args.kind }), ...(args.scope === undefined ? {} : { scope: args.scope }), ...(args.limit === undefined ? {} : { limit: args.limit }) });
        if (context.json) writeLine(out, visibleJson(JSON.stringify({ memories })));
        else writeLine(out, memories.length === 0 ? 'no memories yet: `dagent memory add "..."`, or the agents\' `remember` tool' : memories.map(memoryLine).join('\n'));
        return 0;
      }
      case 'search': {
        if (text === '') throw new ConfigError('memory search needs a query');
        const found = await memory.search(text, { ...(args.kind === undefined ? {} : { kind: args.kind }), ...(args.scope === undefined ? {} : { scope: args.scope }), ...(args.limit === undefined ? {} : { limit: args.limit }) });
        if (context.json) writeLine(out, visibleJson(JSON.stringify({ memories: found })));
        else writeLine(out, found.length === 0 ? `no memory matches "${visibleText(text)}"` : found.map((hit) => memoryLine(hit.memory)).join('\n'));
        return 0;
      }
      case 'rm': {
        const id = Number(text.replace(/^#/, ''));
        if (!Number.isInteger(id) || id <= 0) throw new ConfigError(`memory rm needs a memory id (a number, as \`dagent memory list\` shows it), not "${text}"`);
        if (!(await memory.remove(id, args.scope))) throw new ConfigError(`no ${args.scope === undefined ? '' : `${args.scope} `}memory #${id}: \`dagent memory list\` shows the ids`);
        if (context.json) writeLine(out, JSON.stringify({ removed: id }));
        else writeLine(out, `removed ${args.scope === undefined ? '' : `${args.scope} `}memory #${id}`);
        return 0;
      }
    }
  },
});

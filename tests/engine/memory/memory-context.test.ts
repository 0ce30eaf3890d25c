import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventLog, MemoryStore, Session, SystemPrompt, createRun, loadProjectMemory, projectMemorySection, recallMemories, rememberFromTool, type Store } from '../../../engine/index.js';
import { projectRuntimeContext } from '../../../engine/context/runtime-context.js';
import { memoryContentHash } from '../../../engine/memory/content-hash.js';
import { extractKeywords } from '../../../engine/memory/keywords.js';
import { PROJECT_MEMORY_FILES } from '../../../engine/memory/project-memory.js';
import { openTempStore, tempDir } from '../../helpers/temp-store.js';

describe('extractKeywords', () => {
  it.each([
    { text: 'How do I compute the area of a Shape?', keywords: ['compute', 'area', 'shape'] },
    { text: 'get_area, getArea and get_area again', keywords: ['get_area', 'getarea'] },
    { text: 'Ünïcode wörter zählen', keywords: ['ünïcode', 'wörter', 'zählen'] },
    { text: 'a I to the __ x', keywords: [] },
  ])('$text', ({ text, keywords }) => {
    expect(extractKeywords(text)).toEqual(keywords);
  });

  it('stops at the limit', () => {
    expect(extractKeywords('alpha beta gamma delta', 2)).toEqual(['alpha', 'beta']);
  });
});

describe('memoryContentHash', () => {
  it('ignores case and whitespace only', () => {
    expect(memoryContentHash(' Use  Tabs\n')).toBe(memoryContentHash('use tabs'));
    expect(memoryContentHash('use tabs')).not.toBe(memoryContentHash('use tabs.'));
  });
});

describe('memories within a run', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let session: Session;
  let memories: MemoryStore;
  beforeEach(async () => {
    ({ store, cleanup } = await openTempStore());
    const run = await createRun(store.db, { task: 't', workspace: '/w', mode: 'plan' });
    session = await Session.open(new EventLog(store.db, run.id), 'edit-a');
    memories = new MemoryStore(store);
  });
  afterEach(async () => {
    session.close();
    await cleanup();
  });

  it('the remember tool stores a memory once and records memory/added for a new one', async () => {
    const first = await rememberFromTool(memories, { content: 'Tests live next to the code.', kind: 'convention' }, 'project', session);
    expect(first.text).toBe(`Remembered as project convention #${first.memory.id}: Tests live next to the code.`);
    const again = await rememberFromTool(memories, { content: 'tests live next to the code.' }, 'user', session);
    expect(again).toMatchObject({ created: false, text: `Already remembered as project convention #${first.memory.id}: Tests live next to the code.` });
    const user = await rememberFromTool(memories, { content: 'Answer in French.' }, 'user', session);
    expect(user.memory).toMatchObject({ scope: 'user', kind: 'fact' });
    const events = await session.log.read({ types: ['memory/added'] });
    expect(events.map((event) => [event.nodeId, event.payload])).toEqual([
      ['edit-a', { memoryId: first.memory.id, kind: 'convention', scope: 'project', content: 'Tests live next to the code.', origin: 'remember' }],
      ['edit-a', { memoryId: user.memory.id, kind: 'fact', scope: 'user', content: 'Answer in French.', origin: 'remember' }],
    ]);
    await expect(rememberFromTool(memories, { content: '   ' }, 'project')).rejects.toThrow();
  });

  it('recalled memories enter the history as runtime context, only when they change', async () => {
    await memories.add({ content: 'Shape.getArea() replaced Shape.area().', kind: 'lesson' });
    await memories.add({ content: 'The dashboard uses blessed.' });
    const prompt = new SystemPrompt().addSection({ id: 'rules', text: 'Be careful.' }).addContext(recallMemories(memories, { query: 'Rename area() on every shape' }));

    const step = async (n: number): Promise<string | undefined> => {
      const snapshot = await prompt.assemble();
      return (await projectRuntimeContext(session, snapshot.context, { turn: 0, step: n }))?.payload.content;
    };
    const first = await step(1);
    expect(first).toContain('- memory:\n  Long-term memories that may apply (most relevant first; `remember` adds one):\n  - [project lesson #1] Shape.getArea() replaced Shape.area().');
    expect(first).not.toContain('blessed');
    expect(await step(2)).toBeUndefined();
    await memories.add({ content: 'Every shape must implement getArea.', kind: 'convention' });
    expect(await step(3)).toContain('[project convention #3] Every shape must implement getArea.');
    expect(await step(4)).toBeUndefined();
  });

  it('recalls nothing when nothing matches, and the context key is left out', async () => {
    const provider = recallMemories(memories, { query: () => 'unrelated words' });
    expect(await provider.provide()).toBeUndefined();
  });
});

describe('project memory files', () => {
  let dir: string;
  let done: () => void;
  beforeEach(() => {
    ({ dir, cleanup: done } = tempDir());
  });
  afterEach(() => done());

  it('loads the files in priority order, later overriding earlier, each under its name', async () => {
    mkdirSync(join(dir, '.dagent'));
    for (const path of [...PROJECT_MEMORY_FILES].reverse()) writeFileSync(join(dir, path), `rules from ${path}\n`);
    writeFileSync(join(dir, 'DAGENT.local.md'), '   \n');
    const files = await loadProjectMemory(dir);
    expect(files.map((file) => file.path)).toEqual(['AGENTS.md', 'DAGENT.md', '.dagent/DAGENT.md', '.dagent/DAGENT.local.md']);
    const section = projectMemorySection(files)!;
    expect(section).toMatchObject({ id: 'project-memory', order: 50 });
    expect(section.text).toBe(
      [
        '# Project memory',
        'Instructions from the project memory files below, in priority order: where they disagree, a later file overrides an earlier one.',
        '## AGENTS.md\n\nrules from AGENTS.md',
        '## DAGENT.md\n\nrules from DAGENT.md',
        '## .dagent/DAGENT.md\n\nrules from .dagent/DAGENT.md',
        '## .dagent/DAGENT.local.md\n\nrules from .dagent/DAGENT.local.md',
      ].join('\n\n'),
    );
  });

  it('has no section without files, and survives template braces in a file', async () => {
    expect(projectMemorySection(await loadProjectMemory(dir))).toBeUndefined();
    writeFileSync(join(dir, 'AGENTS.md'), 'Write {{ name }} placeholders in templates.');
    const section = projectMemorySection(await loadProjectMemory(dir))!;
    const snapshot = await new SystemPrompt().addSection(section).assemble();
    expect(snapshot.system).toContain('placeholders in templates.');
  });
});

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { MemoryStore, createRun, followRun, openDatabase, type Store } from '../../../engine/index.js';
import { keywordSearch } from '../../../engine/memory/memory-search.js';
import { openTempStore } from '../../helpers/temp-store.js';

/** One behaviour for every backend: the same stories on SQLite (FTS5) and PostgreSQL (portable scoring). */
function memoryContract(name: string, open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>, expectFullText: boolean): void {
  describe(`MemoryStore on ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let memories: MemoryStore;
    beforeAll(async () => {
      ({ store, cleanup } = await open());
    });
    afterAll(async () => cleanup());

    const fresh = async (): Promise<MemoryStore> => {
      await store.db.deleteFrom('memories').execute();
      memories = new MemoryStore(store, { now: () => new Date('2026-01-02T03:04:05Z') });
      return memories;
    };

    it(`searches ${expectFullText ? 'through the FTS5 index' : 'with the portable scoring'}`, async () => {
      expect((await fresh()).usesFullTextIndex).toBe(expectFullText);
    });

    it('deduplicates on insert, ignoring case and whitespace, and returns the existing memory', async () => {
      await fresh();
      const first = await memories.add({ content: 'Use  tabs for indentation.', kind: 'convention' });
      const again = await memories.add({ content: '  use tabs FOR\nindentation. ', kind: 'preference', scope: 'user' });
      expect(first).toMatchObject({ created: true, memory: { content: 'Use tabs for indentation.', kind: 'convention', scope: 'project', keywords: ['tabs', 'indentation'] } });
      expect(again).toEqual({ created: false, memory: first.memory });
      expect(await memories.list()).toEqual([first.memory]);
    });

    it('numbers the next memory right after the last one when a duplicate was turned away', async () => {
      await fresh();
      const first = await memories.add({ content: 'Run the linter before each commit.' });
      await memories.add({ content: 'run the linter before each commit.' });
      const next = await memories.add({ content: 'Migrations live in migrations/.' });
      expect(next.memory.id).toBe(first.memory.id + 1);
    });

    it('lists by scope and kind, and removes', async () => {
      await fresh();
      const a = await memories.add({ content: 'The user prefers short answers.', kind: 'preference', scope: 'user' });
      const b = await memories.add({ content: 'Tests live next to the code.', kind: 'convention' });
      expect((await memories.list({ scope: 'user' })).map((m) => m.id)).toEqual([a.memory.id]);
      expect((await memories.list({ kind: 'convention' })).map((m) => m.id)).toEqual([b.memory.id]);
      expect(await memories.remove(a.memory.id)).toBe(true);
      expect(await memories.remove(a.memory.id)).toBe(false);
      expect(await memories.get(a.memory.id)).toBeUndefined();
      expect((await memories.search('short answers')).map((r) => r.memory.id)).toEqual([]);
    });

    it('recalls the best matches first, top k', async () => {
      await fresh();
      const shape = await memories.add({ content: 'Shape.getArea() replaced Shape.area(); never call area() on a shape.', kind: 'lesson' });
      const square = await memories.add({ content: 'Square implements Shape in src/square.ts.', kind: 'fact' });
      await memories.add({ content: 'Run the tests with npm test before finishing.', kind: 'convention' });
      await memories.add({ content: 'The user prefers tabs.', kind: 'preference', scope: 'user' });

      const recalled = await memories.search('How do I compute the area of a shape?');
      expect(recalled.map((r) => r.memory.id)).toEqual([shape.memory.id, square.memory.id]);
      expect(recalled[0]!.score).toBeGreaterThan(recalled[1]!.score);
      expect((await memories.search('shape area', { limit: 1 })).map((r) => r.memory.id)).toEqual([shape.memory.id]);
      expect((await memories.search('tabs', { scope: 'project' })).map((r) => r.memory.id)).toEqual([]);
      expect(await memories.search('how do I do it?')).toEqual([]);
    });

    it('scores 1 per keyword in the text and 1 more per exact keyword, LIKE wildcards taken literally', async () => {
      await fresh();
      const a = await memories.add({ content: 'Compaction keeps the last three turns verbatim.' });
      const b = await memories.add({ content: 'The summarizer must keep every failing test name.' });
      const snake = await memories.add({ content: 'Rename get_area to getArea.' });
      const scored = await keywordSearch(store.db, ['keep', 'turns', 'verbatim'], { limit: 5 });
      expect(scored.map((r) => [r.memory.id, r.score])).toEqual([[a.memory.id, 5], [b.memory.id, 2]]);
      expect((await keywordSearch(store.db, ['get_area'], { limit: 5 })).map((r) => r.memory.id)).toEqual([snake.memory.id]);
      expect(await keywordSearch(store.db, ['get%area'], { limit: 5 })).toEqual([]);
      expect((await keywordSearch(store.db, ['keep'], { limit: 5, kind: 'fact' })).map((r) => r.memory.id)).toEqual([b.memory.id, a.memory.id]);
      expect(await keywordSearch(store.db, ['keep'], { limit: 5, scope: 'user' })).toEqual([]);
    });

    it('finds a memory by a keyword given on insert that its text does not contain', async () => {
      await fresh();
      const mention = await memories.add({ content: 'Deploys go through the release branch; the database migrates on start.' });
      const tagged = await memories.add({ content: 'Never edit a migration once it shipped; add a new one.', keywords: ['schema'] });
      expect(tagged.memory.keywords).toContain('schema');
      expect((await memories.search('schema')).map((r) => r.memory.id)).toEqual([tagged.memory.id]);
      expect((await memories.search('database schema')).map((r) => r.memory.id).sort()).toEqual([mention.memory.id, tagged.memory.id].sort());
    });
  });
}

memoryContract('SQLite', openTempStore, true);

const postgresUrl = inject('postgresUrl');
describe.skipIf(postgresUrl === '')('PostgreSQL', () => {
  memoryContract(
    'PostgreSQL',
    async () => {
      const name = `dagent_memory_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      const store = await openDatabase(postgresUrl.replace(/\/[^/]*$/, `/${name}`));
      return {
        store,
        cleanup: async () => {
          await store.close();
          await admin.query(`DROP DATABASE ${name}`);
          await admin.end();
        },
      };
    },
    false,
  );

  it('asks once whether a project has memories while a follower hears the store, and finds one another process adds', async () => {
    const name = `dagent_memory_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = postgresUrl.replace(/\/[^/]*$/, `/${name}`);
    const store = await openDatabase(url);
    const reads: string[] = [];
    // The handle a run's follower and its memory recall share, with its reads of memories counted.
    const db = store.db.withPlugin({
      transformQuery: (args) => {
        if (JSON.stringify(args.node).includes('memories')) reads.push(args.node.kind);
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const run = await createRun(store.db, { task: 'refactor', workspace: '/tmp', mode: 'plan' });
    const stopping = new AbortController();
    try {
      const recall = new MemoryStore({ db, dialect: 'postgres' });
      expect(await recall.search('indentation tabs')).toEqual([]);
      const unheard = reads.length;
      const follower = await followRun({ db, dialect: 'postgres', url }, run.id, { afterSeq: 0, signal: stopping.signal, onEvents: () => undefined });
      for (let step = 0; step < 4; step++) expect(await recall.search('indentation tabs')).toEqual([]);
      const heard = reads.length - unheard;
      // One this process adds is found at once (its notification may come later).
      const mine = await new MemoryStore({ db, dialect: 'postgres' }).add({ content: 'Indentation is two spaces in YAML.' });
      expect((await recall.search('indentation yaml')).map((found) => found.memory.id)).toEqual([mine.memory.id]);
      await new MemoryStore({ db, dialect: 'postgres' }).remove(mine.memory.id);
      expect(await recall.search('indentation yaml')).toEqual([]);

      const other = await openDatabase(url);
      const theirs = await new MemoryStore(other).add({ content: 'Use tabs for indentation.' });
      await other.close();
      await vi.waitFor(async () => expect((await recall.search('indentation tabs')).map((found) => found.memory.id)).toEqual([theirs.memory.id]), { timeout: 5_000, interval: 20 });
      await follower.stop();

      expect(unheard).toBeGreaterThan(0);
      expect(heard).toBe(1);
    } finally {
      stopping.abort();
      await store.close();
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    }
  });
});

describe('the portable search on SQLite', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ store, cleanup } = await openTempStore());
  });
  afterAll(async () => cleanup());

  it('finds what FTS5 finds for whole words, and matches inside words where FTS5 does not', async () => {
    const memories = new MemoryStore(store);
    const a = await memories.add({ content: 'Compaction keeps the last three turns verbatim.' });
    const b = await memories.add({ content: 'The summarizer must keep every failing test name.' });
    await memories.add({ content: 'Unrelated: the dashboard uses blessed.' });
    const viaIndex = await memories.search('keep turns verbatim');
    const portable = await keywordSearch(store.db, ['keep', 'turns', 'verbatim'], { limit: 5 });
    expect(viaIndex.map((r) => r.memory.id)).toEqual([a.memory.id, b.memory.id]);
    expect(portable.map((r) => r.memory.id)).toEqual([a.memory.id, b.memory.id]);
    // 1 per keyword in the text ("keeps" contains "keep"), 1 more per exact keyword.
    expect(portable.map((r) => r.score)).toEqual([5, 2]);
    // Substring matching: "ashboar" is inside "dashboard" for LIKE, not a token for FTS5.
    expect(await keywordSearch(store.db, ['ashboar'], { limit: 5 })).toHaveLength(1);
    expect(await memories.search('ashboar')).toEqual([]);
    // FTS5 stems: "summarizing" finds "summarizer"; LIKE does not.
    expect((await memories.search('summarizing')).map((r) => r.memory.id)).toEqual([b.memory.id]);
    expect(await keywordSearch(store.db, ['summarizing'], { limit: 5 })).toEqual([]);
  });

  it('treats LIKE wildcards in keywords literally', async () => {
    const memories = new MemoryStore(store);
    const snake = await memories.add({ content: 'Rename get_area to getArea.' });
    expect((await keywordSearch(store.db, ['get_area'], { limit: 5 })).map((r) => r.memory.id)).toEqual([snake.memory.id]);
    expect(await keywordSearch(store.db, ['get%area'], { limit: 5 })).toEqual([]);
  });

  it('finds a memory in a project that had none, whether another store on the handle or another process added it', async () => {
    const { store: project, path, cleanup: done } = await openTempStore();
    const recall = new MemoryStore(project);
    const tool = new MemoryStore(project);
    expect(await recall.search('indentation tabs')).toEqual([]);
    expect(await recall.search('indentation tabs')).toEqual([]);

    const mine = await tool.add({ content: 'Use tabs for indentation.' });
    expect((await recall.search('indentation tabs')).map((r) => r.memory.id)).toEqual([mine.memory.id]);

    await tool.remove(mine.memory.id);
    expect(await recall.search('indentation tabs')).toEqual([]);
    const other = await openDatabase(path);
    const theirs = await new MemoryStore(other).add({ content: 'Indentation is two spaces in YAML.' });
    await other.close();
    expect((await recall.search('indentation')).map((r) => r.memory.id)).toEqual([theirs.memory.id]);
    await done();
  });

  it("answers a wide stage's searches of an empty project with one look at the store, and finds a memory another process adds after them", async () => {
    const { store: project, path, cleanup: done } = await openTempStore();
    const recall = new MemoryStore(project);
    const executed: string[] = [];
    const execute = project.db.getExecutor().executeQuery.bind(project.db.getExecutor());
    vi.spyOn(project.db.getExecutor(), 'executeQuery').mockImplementation((query, ...rest) => {
      executed.push(query.sql);
      return execute(query, ...rest);
    });

    const answers = await Promise.all(Array.from({ length: 30 }, () => recall.search('indentation tabs')));

    expect(answers).toEqual(Array.from({ length: 30 }, () => []));
    expect(executed.filter((text) => /data_version/.test(text))).toHaveLength(1);
    const other = await openDatabase(path);
    const theirs = await new MemoryStore(other).add({ content: 'Use tabs for indentation.' });
    await other.close();
    expect((await recall.search('indentation tabs')).map((r) => r.memory.id)).toEqual([theirs.memory.id]);
    vi.restoreAllMocks();
    await done();
  });

  it('falls back by itself when the FTS5 index is missing', async () => {
    const { store: bare, cleanup: done } = await openTempStore();
    const { sql } = await import('kysely');
    await sql.raw('DROP TABLE memories_fts').execute(bare.db);
    for (const trigger of ['memories_fts_insert', 'memories_fts_delete', 'memories_fts_update']) await sql.raw(`DROP TRIGGER ${trigger}`).execute(bare.db);
    const memories = new MemoryStore(bare);
    const added = await memories.add({ content: 'Prefer small files.' });
    expect((await memories.search('small files')).map((r) => r.memory.id)).toEqual([added.memory.id]);
    expect(memories.usesFullTextIndex).toBe(false);
    await done();
  });
});

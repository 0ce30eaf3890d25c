import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findImporters, scanRepository, SCAN_CACHE_PATH } from '../../../planners/index.js';
import { copyFixtureRepo } from '../fixture-repo.js';

/** The scan keeps what it parsed in .dagent/cache: the next scan reads only what changed. */

let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root, cleanup } = copyFixtureRepo('billing'));
});
afterEach(() => cleanup());

async function scanRecording(): Promise<{ parsed: string[]; map: Awaited<ReturnType<typeof scanRepository>> }> {
  const parsed: string[] = [];
  const map = await scanRepository(root, { onParse: (path) => parsed.push(path) });
  return { parsed, map };
}

describe('the scan cache', () => {
  it('parses every script once, then none while nothing changes, with the same answer', async () => {
    const first = await scanRecording();
    expect(first.parsed.length).toBeGreaterThan(5);
    expect(existsSync(join(root, SCAN_CACHE_PATH))).toBe(true);
    const second = await scanRecording();
    expect(second.parsed).toEqual([]);
    expect(second.map).toEqual(first.map);
  });

  it('re-reads only the file that was edited, and answers with its new imports', async () => {
    await scanRecording();
    writeFileSync(join(root, 'src/geometry.ts'), "import { Invoice } from './models/invoice.js';\nexport const unit = (invoice: Invoice) => invoice;\n");
    const { parsed, map } = await scanRecording();
    expect(parsed).toEqual(['src/geometry.ts']);
    expect(findImporters(map, 'src/models/invoice.ts#Invoice').map((importer) => importer.file)).toContain('src/geometry.ts');
  });

  it('sees an edit that keeps the size, by its modification time', async () => {
    await scanRecording();
    const path = join(root, 'src/geometry.ts');
    writeFileSync(path, "export const a = 1;\n");
    utimesSync(path, new Date(2001, 1, 1), new Date(2001, 1, 1));
    await scanRecording();
    writeFileSync(path, "export const b = 1;\n");
    utimesSync(path, new Date(2002, 1, 1), new Date(2002, 1, 1));
    const { parsed, map } = await scanRecording();
    expect(parsed).toEqual(['src/geometry.ts']);
    expect(map.files.find((file) => file.path === 'src/geometry.ts')?.exports).toEqual(['b']);
  });

  it('resolves again, without parsing, when a file is added (an import may now lead to it)', async () => {
    await scanRecording();
    writeFileSync(join(root, 'src/extra.ts'), "export const extra = 1;\n");
    const { parsed, map } = await scanRecording();
    expect(parsed).toEqual(['src/extra.ts']);
    expect(map.files.some((file) => file.path === 'src/extra.ts')).toBe(true);
  });

  it('resolves again when a config that tsconfig.json extends changes', async () => {
    const base = { compilerOptions: { moduleResolution: 'Bundler', module: 'ESNext', paths: { '@models/*': ['./src/models/*'], '@shapes': ['./src/shapes/index.ts'] } } };
    writeFileSync(join(root, 'tsconfig.base.json'), JSON.stringify(base));
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ extends: './tsconfig.base.json', include: ['src'] }));
    const importers = (map: Awaited<ReturnType<typeof scanRepository>>) => findImporters(map, 'src/models/invoice.ts#Invoice').map((importer) => importer.file);
    expect(importers((await scanRecording()).map)).toContain('src/jobs/reminder.ts');

    // The alias goes away in the base config only: `@models/index` no longer leads anywhere.
    writeFileSync(join(root, 'tsconfig.base.json'), JSON.stringify({ compilerOptions: { ...base.compilerOptions, paths: {} } }));
    const { parsed, map } = await scanRecording();
    expect(parsed).toEqual([]);
    expect(importers(map)).not.toContain('src/jobs/reminder.ts');
  });

  it('works without the cache when asked', async () => {
    const parsed: string[] = [];
    await scanRepository(root, { cache: false, onParse: (path) => parsed.push(path) });
    expect(existsSync(join(root, SCAN_CACHE_PATH))).toBe(false);
    expect(parsed.length).toBeGreaterThan(5);
  });
});

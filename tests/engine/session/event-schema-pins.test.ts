import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, eventDefinition } from '../../../engine/session/event-types.js';

const PINS_FILE = new URL('./event-schema-pins.json', import.meta.url);

/** A fingerprint of every version's payload schema of every event type, as `type@version`. */
function fingerprints(): Record<string, string> {
  const pins: Record<string, string> = {};
  for (const type of EVENT_TYPES) {
    const definition = eventDefinition(type)!;
    const versions: [number, z.ZodType][] = [[definition.version, definition.payload()], ...Object.entries(definition.earlier).map(([version, earlier]) => [Number(version), earlier.payload()] as [number, z.ZodType])];
    for (const [version, schema] of versions) {
      const json = JSON.stringify(z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }));
      pins[`${type}@${version}`] = createHash('sha256').update(json).digest('hex').slice(0, 16);
    }
  }
  return pins;
}

describe('event schemas are pinned per version', () => {
  // Rows of today's version are read without checking their schema again (the append checked it):
  // that holds only while a version's schema never changes. A change is a new version in defineEvent.
  it('no version of any event type changed its payload schema (a change needs a new version; a new version, its pin)', () => {
    const pinned = JSON.parse(readFileSync(PINS_FILE, 'utf8')) as Record<string, string>;
    const now = fingerprints();

    const changed = Object.keys(pinned).filter((key) => now[key] !== undefined && now[key] !== pinned[key]);
    const unpinned = Object.fromEntries(Object.entries(now).filter(([key]) => pinned[key] === undefined));

    expect(changed, 'these versions changed their schema: give the change a new version (defineEvent) instead').toEqual([]);
    expect(unpinned, `add these pins to ${PINS_FILE.pathname}`).toEqual({});
  });
});

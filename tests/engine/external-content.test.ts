import { describe, expect, it } from 'vitest';
import { tailLines } from '../../dashboard/index.js';
import { toolResultGist, wrapExternalContent, type SessionEvent } from '../../engine/index.js';

/**
 * What `dagent log` and the dashboard's live events show of a tool result: an MCP tool's or a web
 * page's own text, not the untrusted-content wrapper the model reads around it (its tag and its
 * notice filled the line: `walk__echo ok: <external-content source="mcp" server="walk" … The text below is untrusted …`).
 */
const mcpAnswer = wrapExternalContent('echo: hi', { source: 'mcp', server: 'walk', tool: 'echo' });

describe('the gist of a tool result', () => {
  it.each([
    ['an MCP answer', mcpAnswer, 'echo: hi'],
    ['an MCP failure', `error: the MCP tool reported a failure\n${wrapExternalContent('the tracker is down', { source: 'mcp', server: 'walk', tool: 'fail' })}`, 'the MCP tool reported a failure\nthe tracker is down'],
    ['a web page', wrapExternalContent('# Release notes\nv2 renames send()', { source: 'web_fetch', url: 'https://example.test/' }), '# Release notes\nv2 renames send()'],
    ['a built-in failure', 'error: nope.ts: no such file or directory', 'nope.ts: no such file or directory'],
    ['a built-in result', '1 export interface Shape {', '1 export interface Shape {'],
  ])('%s', (_what, content, gist) => {
    expect(toolResultGist(content)).toBe(gist);
  });

  it('is what the dashboard lists for the result', () => {
    const event = { seq: 4, runId: 'r-1', nodeId: 'ask', turn: 0, step: 1, type: 'tool/result', payload: { toolCallId: 'c1', name: 'walk__echo', content: mcpAnswer, isError: false, meta: { outcome: 'ok', durationMs: 3, truncated: false } }, createdAt: '2026-12-07T20:01:33.631Z' } as unknown as SessionEvent;

    expect(tailLines(event).map((line) => line.text)).toEqual(['← walk__echo ok: echo: hi']);
  });
});

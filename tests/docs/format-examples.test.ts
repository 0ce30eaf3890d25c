import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../engine/config/config-schema.js';
import { parseScript } from '../../engine/model/scripted-script.js';
import { checkPlan } from '../../engine/plan/check-plan.js';
import { markedBlock } from '../helpers/markdown-references.js';

/**
 * The documents' format examples are what a reader copies first: each must be accepted by the
 * schema that reads that format, so a renamed or removed field fails here, not in a user's hands.
 */
describe('the documented examples of each format', () => {
  it('the scripted model file of docs/scripted-model.md is a valid script', () => {
    const script = parseScript(JSON.parse(markedBlock(join('docs', 'scripted-model.md'), 'script-example')), 'docs/scripted-model.md');

    expect(Object.keys(script.agents)).toEqual(['planner', 'node:edit-a', 'summarizer']);
    expect(script.agents['node:edit-a']?.[0]?.toolCalls?.[0]?.name).toBe('edit_file');
  });

  it('the plan document of docs/plan-document.md is a valid plan', () => {
    const check = checkPlan(JSON.parse(markedBlock(join('docs', 'plan-document.md'), 'plan-example')));

    expect(check.ok ? check.plan.nodes.map((node) => `${node.id}:${node.kind}`) : check.issues).toEqual(['read-all:read', 'edit-a:edit', 'test:command']);
  });

  it('the README\'s configuration and the MCP servers of docs/configuration.md are valid settings', () => {
    const readme = parseConfig(JSON.parse(markedBlock('README.md', 'config-example')), 'README.md');
    const mcp = parseConfig(JSON.parse(markedBlock(join('docs', 'configuration.md'), 'mcp-example')), 'docs/configuration.md');

    expect(readme.replan?.maxReplans).toBe(3);
    expect(Object.keys(mcp.mcpServers ?? {})).toEqual(['tracker', 'docs', 'old']);
  });
});

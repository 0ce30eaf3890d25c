import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configHash, resolveConfig, trustWorkspace, WORKSPACE_CONFIG_FILE, type DagentConfig } from '../../../engine/index.js';
import { tempDir } from '../../helpers/temp-store.js';

/**
 * A repository's `.dagent/config.json` can only tighten the user's limits: it cannot lift a cap
 * (`maxSteps`, `tokenBudget`, `nodeRetries`, `concurrency`, `replan.maxReplans`) above the user's
 * value or dagent's default, nor lower a price, trusted or not; unless the user's own config
 * allows it.
 */

let temp: { dir: string; cleanup: () => void };
let workspace: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  temp = tempDir('dagent-limits-');
  workspace = join(temp.dir, 'workspace');
  mkdirSync(join(workspace, '.dagent'), { recursive: true });
  mkdirSync(join(temp.dir, 'home', '.config', 'dagent'), { recursive: true });
  env = { HOME: join(temp.dir, 'home') };
});

afterEach(() => temp.cleanup());

function userConfig(config: DagentConfig): void {
  writeFileSync(join(temp.dir, 'home', '.config', 'dagent', 'config.json'), JSON.stringify(config));
}

function repositoryConfig(config: DagentConfig, options: { trusted?: boolean } = {}): void {
  const path = join(workspace, WORKSPACE_CONFIG_FILE);
  writeFileSync(path, JSON.stringify(config));
  if (options.trusted === true) trustWorkspace(env, workspace, configHash(readFileSync(path, 'utf8')));
}

const resolve = () => resolveConfig({ workspace, env, flags: {} });

const LOOSER: DagentConfig = { maxSteps: 10_000, tokenBudget: 900_000_000, nodeRetries: 50, concurrency: 500, replan: { maxReplans: 99 }, prices: { 'deepseek:deepseek-chat': { inputCacheMiss: 0, inputCacheHit: 0, output: 0 } } };

describe('a repository config', () => {
  it.each([false, true])('cannot lift the user caps or zero the prices (trusted: %s)', (trusted) => {
    userConfig({ maxSteps: 30, tokenBudget: 100_000, nodeRetries: 1, concurrency: 2 });
    repositoryConfig(LOOSER, { trusted });

    const { config, loosenedLimits } = resolve();

    expect(config).toMatchObject({ maxSteps: 30, tokenBudget: 100_000, nodeRetries: 1, concurrency: 2, replan: { maxReplans: 3 } });
    expect(config.prices?.['deepseek:deepseek-chat']).toEqual({ inputCacheMiss: 0.3, inputCacheHit: 0.006, output: 1.2 });
    expect(loosenedLimits).toContain('maxSteps: 10000 → 30');
    expect(loosenedLimits).toContain('prices.deepseek:deepseek-chat.output: 0 → 1.2');
  });

  it("cannot lift dagent's built-in caps when the user set none", () => {
    repositoryConfig({ maxSteps: 10_000, concurrency: 500 });

    const { config } = resolve();

    expect(config).toMatchObject({ maxSteps: 40, concurrency: 4 });
  });

  it('can tighten them, and raise a price', () => {
    userConfig({ maxSteps: 30 });
    repositoryConfig({ maxSteps: 5, nodeRetries: 0, prices: { 'deepseek:deepseek-chat': { inputCacheMiss: 1, inputCacheHit: 0.5, output: 2 } } });

    const { config, loosenedLimits } = resolve();

    expect(config).toMatchObject({ maxSteps: 5, nodeRetries: 0, prices: { 'deepseek:deepseek-chat': { inputCacheMiss: 1, inputCacheHit: 0.5, output: 2 } } });
    expect(loosenedLimits).toEqual([]);
  });

  it("loosens them when the user's own config allows it, and cannot allow it itself", () => {
    repositoryConfig({ ...LOOSER, allowWorkspaceToLoosenLimits: true }, { trusted: true });
    expect(resolve().config.maxSteps).toBe(40);
    expect(resolve().config.allowWorkspaceToLoosenLimits).toBeUndefined();

    userConfig({ allowWorkspaceToLoosenLimits: true });
    expect(resolve().config).toMatchObject({ maxSteps: 10_000, concurrency: 500 });
  });

  it.each([false, true])('may lower the budget but never raise it, even where the user allows loosening (trusted: %s)', (trusted) => {
    userConfig({ budget: { maxCostUsd: 2, maxTokens: 500_000 }, allowWorkspaceToLoosenLimits: true });
    repositoryConfig({ budget: { maxCostUsd: 50, maxTokens: 100_000 } }, { trusted });

    const { config, raisedBudget } = resolve();

    expect(config.budget).toEqual({ maxCostUsd: 2, maxTokens: 100_000 });
    expect(raisedBudget).toEqual(['budget.maxCostUsd: 50 → 2']);
  });

  it('sets a budget where the user has none: a cap is lower than none', () => {
    repositoryConfig({ budget: { maxCostUsd: 1.5 } });
    expect(resolve()).toMatchObject({ config: { budget: { maxCostUsd: 1.5 } }, raisedBudget: [] });
  });

  it('leaves the flags and environment of the user above both', () => {
    repositoryConfig({ concurrency: 500 });
    expect(resolveConfig({ workspace, env: { ...env, DAGENT_CONCURRENCY: '64' }, flags: {} }).config.concurrency).toBe(64);
  });
});

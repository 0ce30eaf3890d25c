import { describe, expect, it } from 'vitest';
import { hookMatches } from '../../../engine/hooks/hook-effect.js';
import { parseConfig } from '../../../engine/config/config-schema.js';

/** A hook's matcher in the settings file: `*`, empty or none matches every one, as docs/hooks.md says; a broken pattern says why. */

describe('hook matchers in the settings file', () => {
  it('takes `*` as every tool, as it takes no matcher', () => {
    const config = parseConfig({ hooks: { PreToolUse: [{ matcher: '*', command: 'true' }, { command: 'true' }] } }, 'config.json');

    const [star, none] = config.hooks!.PreToolUse!;
    expect([hookMatches(star!.matcher, 'edit_file'), hookMatches(none!.matcher, 'edit_file')]).toEqual([true, true]);
  });

  it('refuses a pattern that is not a regular expression, with the reason and what matches everything', () => {
    expect(() => parseConfig({ hooks: { PostToolUse: [{ matcher: 'edit_file(', command: 'true' }] } }, 'config.json')).toThrow(
      'hooks.PostToolUse.0.matcher: matcher is not a valid regular expression (Unterminated group); `*` or no matcher matches every one',
    );
  });
});

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, WORKSPACE_CONFIG_FILE, configHash, readConfigFile, trustWorkspace, visibleText } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';

export const trustCommand = defineCommand<object>({
  builder: (yargs) =>
    yargs
      .example('$0 trust', "after reading .dagent/config.json: let it set this workspace's models, URLs and approval policies")
      .epilogue('The trust is recorded in your own config folder (~/.config/dagent/trusted-workspaces.json), keyed by the workspace path and the hash of its config: when the file changes, dagent ignores its settings again until you trust it again.'),
  async run(context) {
    const path = join(context.workspace, WORKSPACE_CONFIG_FILE);
    if (!existsSync(path)) throw new ConfigError(`${path} does not exist: there is nothing to trust`);
    const text = readFileSync(path, 'utf8');
    // An invalid file is refused before it is trusted.
    readConfigFile(path);
    const hash = configHash(text);
    const recorded = trustWorkspace(context.io.env, context.workspace, hash);
    if (context.json) writeLine(context.io.stdout, JSON.stringify({ workspace: context.workspace, config: path, hash, recordedIn: recorded }));
    else {
      writeLine(context.io.stdout, `trusted ${path} (sha256 ${hash.slice(0, 12)}) as it is now:`);
      // The user reads what they trust: escapes in the file are shown, not obeyed.
      writeLine(context.io.stdout, visibleText(text.trimEnd(), { multiline: true }));
      writeLine(context.io.stdout, `recorded in ${recorded}; a change to the file asks for trust again`);
    }
    return 0;
  },
});

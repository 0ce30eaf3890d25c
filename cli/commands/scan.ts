import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, visibleJson, visibleText } from '../../engine/index.js';
import { writeLine } from '../context/cli-io.js';
import { defineCommand } from '../context/command.js';
import { loadPlanners } from '../runtime/load-planners.js';
import { warmLanguageService } from '../runtime/language-daemon/warm-language-service.js';
import { workspaceRepoMap } from '../runtime/workspace-repo-map.js';

export const scanCommand = defineCommand<{ importers?: string; tsconfig?: string }>({
  examples: [
    ['$0 scan --importers src/invoice.ts#Invoice.total', 'the files that use Invoice.total'],
  ],
  builder: (yargs) =>
    yargs
      .option('importers', {
        type: 'string',
        requiresArg: true,
        describe: 'FILE#SYMBOL or FILE#Class.member: the files that use it, e.g. src/models/invoice.ts#Invoice.total',
      })
      .option('tsconfig', { type: 'string', requiresArg: true, describe: 'the tsconfig to resolve imports and types with (default tsconfig.json, then jsconfig.json)' }),
  async run(context, args) {
    // A config named on the command line must be there: the default ones may be missing (the scan then resolves as node does).
    if (args.tsconfig !== undefined && !existsSync(resolve(context.io.cwd, args.tsconfig))) throw new ConfigError(`--tsconfig ${args.tsconfig}: no such file (the scan looks for tsconfig.json, then jsconfig.json, when none is named)`);
    const { findSymbolReferences, renderScanText, scanJson } = await loadPlanners();
    const map = await workspaceRepoMap(context, args.tsconfig);
    const languageService = await warmLanguageService(context, args.tsconfig);
    // Throws UnknownSymbolError (exit 2, one line) for a file, name or member the scan does not know.
    const importers = args.importers === undefined ? undefined : await findSymbolReferences(map, args.importers, () => languageService);
    if (context.json) {
      writeLine(context.io.stdout, visibleJson(JSON.stringify(scanJson(map, importers))));
      // The JSON document has no place for them; a broken tsconfig should still be heard.
      for (const warning of map.warnings) writeLine(context.io.stderr, `dagent: warning: ${visibleText(warning)}`);
    } else {
      context.io.stdout.write(visibleText(renderScanText(map, importers), { multiline: true }));
    }
    return 0;
  },
});

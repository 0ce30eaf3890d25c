import { writeLine } from '../cli-io.js';
import { defineCommand } from '../command.js';
import { loadPlanners, workspaceRepoMap } from '../plan-lint.js';

export const scanCommand = defineCommand<{ importers?: string }>({
  builder: (yargs) =>
    yargs.option('importers', {
      type: 'string',
      requiresArg: true,
      describe: 'FILE#SYMBOL: the files that use an exported symbol, e.g. src/models/invoice.ts#Invoice',
    }),
  async run(context, args) {
    const { findImporters, renderScanText, scanJson } = await loadPlanners();
    const map = await workspaceRepoMap(context);
    // Throws UnknownSymbolError (exit 2, one line) for a file or name the scan does not know.
    const importers = args.importers === undefined ? undefined : findImporters(map, args.importers);
    if (context.json) {
      writeLine(context.io.stdout, JSON.stringify(scanJson(map, importers)));
      // The JSON document has no place for them; a broken tsconfig should still be heard.
      for (const warning of map.warnings) writeLine(context.io.stderr, `dagent: warning: ${warning}`);
    } else {
      context.io.stdout.write(renderScanText(map, importers));
    }
    return 0;
  },
});

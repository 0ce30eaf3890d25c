/** The engine's package face: how it loads the packages it loads on demand, which the CLI's entry sets before anything else of the engine is loaded. */
import { createRequire } from 'node:module';

let load: (specifier: string) => unknown = (specifier) => createRequire(import.meta.url)(specifier);

/**
 * Loads a package the engine loads on demand (the tokenizer): through Node's `require`, or through
 * what `usePackageRequire` gave: the CLI's bundle loader, which compiles it with its code cache.
 */
export function requirePackage(specifier: string): unknown {
  return load(specifier);
}

/** How `requirePackage` loads from now on (`cli/load-bundle.ts` hands its own to the CLI's entry). */
export function usePackageRequire(require: (specifier: string) => unknown): void {
  load = require;
}

/**
 * A generated TypeScript repository for the scan benchmark and the scan property test: modules
 * in packages with barrels, each declaring a class (a method, a property, a static), an
 * interface, an enum and a factory, and using a few earlier modules in every way the scan must
 * follow — named and type-only imports, namespace imports with nested chains through
 * `export * as`, a namespace object spread from a namespace, re-export barrels, calls through
 * inferred types, subclasses, implemented interfaces, destructuring, and module augmentation.
 */
export interface GeneratedRepoOptions {
  readonly modules: number;
  readonly modulesPerPackage?: number;
  readonly seed?: number;
}

export function generateScanRepo(options: GeneratedRepoOptions): Record<string, string> {
  const perPackage = options.modulesPerPackage ?? 25;
  const random = seededRandom(options.seed ?? 1);
  const pick = (below: number): number => Math.floor(random() * below);
  const files: Record<string, string> = {
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'ESNext', moduleResolution: 'Bundler', strict: true, noEmit: true, paths: { '@lib/*': ['./src/*'] } }, include: ['src'] }),
    'package.json': JSON.stringify({ name: 'generated', private: true, type: 'module' }),
  };
  const packages = Math.ceil(options.modules / perPackage);
  const packageOf = (module: number): number => Math.floor(module / perPackage);
  const pathOf = (module: number): string => `src/pkg${packageOf(module)}/m${module}.ts`;

  for (let module = 0; module < options.modules; module += 1) {
    const pkg = packageOf(module);
    const imports: string[] = [];
    const body: string[] = [];
    const uses = module === 0 ? 0 : 1 + pick(3);
    for (let use = 0; use < uses; use += 1) {
      const target = pick(module);
      const style = pick(9);
      const alias = `u${use}`;
      const sameDir = packageOf(target) === pkg;
      const direct = sameDir ? `./m${target}.js` : `../pkg${packageOf(target)}/m${target}.js`;
      switch (style) {
        case 0: // named import; a member reached through an inferred type
          imports.push(`import { make${target} } from '${direct}';`);
          body.push(`export const ${alias}_${module} = make${target}().total${target}();`);
          break;
        case 1: // through the target package's barrel, by alias; a property read
          imports.push(`import { Item${target} as ${alias.toUpperCase()}Item } from '@lib/pkg${packageOf(target)}';`);
          body.push(`export const ${alias}_${module} = new ${alias.toUpperCase()}Item().label${target};`);
          break;
        case 2: // namespace import; a nested chain through the root barrel's `export * as`
          imports.push(`import * as root${use} from '@lib/all';`);
          body.push(`export const ${alias}_${module} = root${use}.pkg${packageOf(target)}.make${target}().total${target}();`);
          break;
        case 3: // namespace object spread from a namespace import
          imports.push(`import * as ns${use} from '${direct}';`);
          body.push(`const bag${use} = { ...ns${use} };`, `export const ${alias}_${module} = bag${use}.make${target}();`);
          break;
        case 4: // subclass and an override-free call through it
          imports.push(`import { Item${target} } from '${direct}';`);
          body.push(`export class Sub${module}_${use} extends Item${target} {}`, `export const ${alias}_${module} = new Sub${module}_${use}().total${target}();`);
          break;
        case 5: // an implemented interface, called through it
          imports.push(`import type { Shape${target} } from '${direct}';`);
          body.push(`export function ${alias}_${module}(shape: Shape${target}): number {`, `  return shape.area${target}();`, '}');
          break;
        case 6: // destructuring a member off an inferred value
          imports.push(`import { make${target} } from '${direct}';`);
          body.push(`const { label${target}: ${alias}Label } = make${target}();`, `export const ${alias}_${module} = ${alias}Label;`);
          break;
        case 7: // an enum member
          imports.push(`import { Kind${target} } from '${direct}';`);
          body.push(`export const ${alias}_${module} = Kind${target}.Second;`);
          break;
        default: // imported only, to pass along as a type
          imports.push(`import type { Item${target} } from '${direct}';`);
          body.push(`export type ${alias.toUpperCase()}_${module} = Item${target} | undefined;`);
      }
    }
    if (module > 0 && pick(40) === 0) {
      const target = pick(module);
      body.push(`declare module '${packageOf(target) === pkg ? `./m${target}.js` : `../pkg${packageOf(target)}/m${target}.js`}' {`, `  interface Shape${target} {`, `    extra${module}?(): void;`, '  }', '}');
    }
    files[pathOf(module)] = [
      ...imports,
      '',
      `export enum Kind${module} {`,
      '  First = 1,',
      '  Second = 2,',
      '}',
      '',
      `export interface Shape${module} {`,
      `  area${module}(): number;`,
      '}',
      '',
      `export class Item${module} implements Shape${module} {`,
      `  label${module} = 'item ${module}';`,
      `  static create${module}(): Item${module} {`,
      `    return new Item${module}();`,
      '  }',
      `  total${module}(): number {`,
      `    return ${module};`,
      '  }',
      `  area${module}(): number {`,
      `    return this.total${module}() * 2;`,
      '  }',
      '}',
      '',
      `export function make${module}(): Item${module} {`,
      `  return Item${module}.create${module}();`,
      '}',
      '',
      ...body,
      '',
    ].join('\n');
  }
  for (let pkg = 0; pkg < packages; pkg += 1) {
    const members: string[] = [];
    for (let module = pkg * perPackage; module < Math.min(options.modules, (pkg + 1) * perPackage); module += 1) members.push(`export * from './m${module}.js';`);
    files[`src/pkg${pkg}/index.ts`] = `${members.join('\n')}\n`;
  }
  files['src/all.ts'] = `${Array.from({ length: packages }, (_, pkg) => `export * as pkg${pkg} from './pkg${pkg}/index.js';`).join('\n')}\n`;
  return files;
}

/** The public surface of module `index`: its exports and its class's public members, as `FILE#Symbol` keys. */
export function generatedSymbols(module: number, modulesPerPackage = 25): string[] {
  const file = `src/pkg${Math.floor(module / modulesPerPackage)}/m${module}.ts`;
  return [
    `${file}#Kind${module}`,
    `${file}#Shape${module}`,
    `${file}#Item${module}`,
    `${file}#make${module}`,
    `${file}#Item${module}.total${module}`,
    `${file}#Item${module}.label${module}`,
    `${file}#Item${module}.area${module}`,
    `${file}#Item${module}.create${module}`,
    `${file}#Kind${module}.Second`,
    `${file}#Shape${module}.area${module}`,
  ];
}

/** A deterministic xorshift generator in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

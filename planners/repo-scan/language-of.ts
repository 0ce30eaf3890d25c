import { posix } from 'node:path';
import type { Language } from './repo-map.js';

const LANGUAGE_BY_EXTENSION: Readonly<Record<string, Language>> = {
  '.ts': 'TypeScript',
  '.tsx': 'TypeScript',
  '.mts': 'TypeScript',
  '.cts': 'TypeScript',
  '.js': 'JavaScript',
  '.jsx': 'JavaScript',
  '.mjs': 'JavaScript',
  '.cjs': 'JavaScript',
  '.json': 'JSON',
  '.md': 'Markdown',
  '.mdx': 'Markdown',
  '.py': 'Python',
  '.go': 'Go',
  '.rs': 'Rust',
  '.java': 'Java',
  '.kt': 'Kotlin',
  '.kts': 'Kotlin',
  '.scala': 'Scala',
  '.swift': 'Swift',
  '.c': 'C',
  '.h': 'C',
  '.cc': 'C++',
  '.cpp': 'C++',
  '.cxx': 'C++',
  '.hpp': 'C++',
  '.cs': 'C#',
  '.rb': 'Ruby',
  '.php': 'PHP',
  '.sh': 'Shell',
  '.bash': 'Shell',
  '.zsh': 'Shell',
  '.ps1': 'PowerShell',
  '.yml': 'YAML',
  '.yaml': 'YAML',
  '.toml': 'TOML',
  '.ini': 'INI',
  '.xml': 'XML',
  '.html': 'HTML',
  '.htm': 'HTML',
  '.css': 'CSS',
  '.scss': 'SCSS',
  '.less': 'Less',
  '.vue': 'Vue',
  '.svelte': 'Svelte',
  '.sql': 'SQL',
  '.graphql': 'GraphQL',
  '.proto': 'Protocol Buffers',
  '.lua': 'Lua',
  '.dart': 'Dart',
  '.ex': 'Elixir',
  '.exs': 'Elixir',
  '.erl': 'Erlang',
  '.hs': 'Haskell',
  '.ml': 'OCaml',
  '.clj': 'Clojure',
  '.r': 'R',
  '.txt': 'Text',
};

const LANGUAGE_BY_NAME: Readonly<Record<string, Language>> = {
  Dockerfile: 'Dockerfile',
  Makefile: 'Makefile',
  GNUmakefile: 'Makefile',
  Rakefile: 'Ruby',
  Gemfile: 'Ruby',
};

/** The language of a file by its name and extension; `other` when neither is known. */
export function languageOf(path: string): Language {
  const name = posix.basename(path);
  const byName = LANGUAGE_BY_NAME[name];
  if (byName !== undefined) return byName;
  return LANGUAGE_BY_EXTENSION[posix.extname(name).toLowerCase()] ?? 'other';
}

/** Whether the TypeScript compiler parses this file for the import graph (`.d.ts` included). */
export function isScriptFile(path: string): boolean {
  const language = languageOf(path);
  return language === 'TypeScript' || language === 'JavaScript';
}

import { matchFiles } from './plan-lint-files.js';
import { isEditingNode, type LintablePlan, type LintPlanNode } from './lintable-plan.js';
import { normalizeWorkspacePath, parseSymbolKey, type RepoMap } from './repo-scan/index.js';

/** A symbol an editing node changes: `src/invoice.ts#Invoice.total`. */
export interface ChangedSymbol {
  /** `FILE#Name` or `FILE#Class.member`. */
  readonly symbol: string;
  readonly nodeId: string;
  /** Named by the node's `changes`; otherwise inferred from the task and the instructions. */
  readonly declared: boolean;
}

/**
 * The symbols a plan changes. A node's `changes` say it outright. Without them, the node's title
 * and instructions and the plan's goal are searched for the exported names of the files the node
 * writes: `Invoice.total()` names the member, a bare `Invoice` the class. A node whose text names
 * none of its files' exports changes no symbol lint can see (a comment, a body): nothing is
 * reported for it.
 */
export function changedSymbols(plan: LintablePlan, map: RepoMap): ChangedSymbol[] {
  const files = map.files.map((file) => file.path);
  const exportsOf = new Map(map.files.map((file) => [file.path, file.exports]));
  const found: ChangedSymbol[] = [];
  const seen = new Set<string>();
  const add = (symbol: string, nodeId: string, declared: boolean): void => {
    if (seen.has(symbol)) return;
    seen.add(symbol);
    found.push({ symbol, nodeId, declared });
  };
  for (const node of plan.nodes.filter(isEditingNode)) {
    if (node.changes !== undefined && node.changes.length > 0) {
      for (const change of node.changes) {
        const parsed = parseSymbolKey(change);
        if (parsed !== undefined) add(`${normalizeWorkspacePath(parsed.file)}#${parsed.name}`, node.id, true);
      }
      continue;
    }
    const text = nodeText(node, plan.goal);
    for (const file of new Set(node.writes.flatMap((pattern) => matchFiles(pattern, files)))) {
      for (const name of exportsOf.get(file) ?? []) {
        const changing = changingClauses(text, name);
        if (name === 'default' || changing.length === 0) continue;
        const members = memberMentions(changing.join('\n'), name);
        if (members.length === 0) add(`${file}#${name}`, node.id, false);
        else for (const member of members) add(`${file}#${name}.${member}`, node.id, false);
      }
    }
  }
  return found;
}

function nodeText(node: LintPlanNode, goal: string | undefined): string {
  return [node.title ?? '', node.instructions ?? '', goal ?? ''].join('\n');
}

function mentions(text: string, name: string): boolean {
  return new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`).test(text);
}

/**
 * The clauses that name it and do not say it stays as it is: "Message and Receipt do not change",
 * "keep Receipt unchanged" or "Receipt stays as is" name a type the node leaves alone, and lint
 * must not report its users as broken.
 */
function changingClauses(text: string, name: string): string[] {
  return clauses(text).filter((clause) => mentions(clause, name) && !LEAVES_ALONE.test(clause));
}

/** Sentences and the parts of one joined by `;` or "but": a negation holds for its own clause. */
function clauses(text: string): string[] {
  return text.split(/(?<=[.!?;:])\s+|\n+|;\s*|\s+but\s+|\s+while\s+/i).filter((clause) => clause.trim() !== '');
}

const LEAVES_ALONE =
  /\b(?:(?:do|does|did|must|should|will|need|may)\s*(?:not|n't)\s+(?:be\s+)?(?:change|changed|touch|touched|rename|renamed|modify|modified|edit|edited)|(?:don't|doesn't|mustn't|shouldn't|won't)\s+(?:change|touch|rename|modify|edit)|unchanged|untouched|as\s+(?:it|they)\s+(?:is|are)|as\s+is|alone|(?:stay|stays|remain|remains)\s+(?:the\s+same|as|unchanged))\b/i;

/**
 * `Invoice.total` in "rename Invoice.total() to Invoice.grandTotal()": only the first member
 * named counts — the second is the new name, which nothing uses yet.
 */
function memberMentions(text: string, name: string): string[] {
  const member = new RegExp(`(?<![\\w$])${escapeRegExp(name)}\\.([A-Za-z_$][\\w$]*)`).exec(text)?.[1];
  return member === undefined ? [] : [member];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

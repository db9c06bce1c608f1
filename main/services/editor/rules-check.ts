/**
 * Checks a rules file (`*.rules.json`) for the editor: JSON syntax, then the registration `witness act --rules` runs
 * (core/loop/rules.ts checkRulesDocument: the schema, unknown fields with did-you-mean, propositions over the world's
 * fields and the registered tools, propositions no tool can change, each rule's LTL), every problem it finds at the
 * range of the text it is about: a field's name, a proposition's CEL down to the misspelled name, a rule's LTL down to
 * the position of a syntax error or the unknown proposition.
 */
import { type Node, findNodeAtLocation, getNodeValue } from 'jsonc-parser';
import type { Diagnostic } from '../../contract/api.js';
import { checkRulesDocument, jsonPathOf } from '../../core/loop/rules.js';
import type { RegisteredTool } from '../../core/loop/tools.js';
import type { Vocabulary } from '../../core/loop/vocabulary.js';
import { LineIndex } from './text-range.js';
import { conditionRange, parseJsonTree, valueOffsets } from './tool-check.js';

/** The range inside a rule's LTL literal a problem is about: a syntax error's column, an unknown name, or all of it. */
function ltlRange(text: string, node: Node, message: string): [number, number] {
  const offsets = valueOffsets(text, node);
  const ltl = node.value as string;
  const at = /^1:(\d+):/.exec(message);
  if (at !== null) {
    const k = Math.min(Number(at[1]) - 1, ltl.length - 1);
    if (k >= 0) return [offsets[k]!, offsets[k + 1]!];
  }
  const named = /unknown proposition "([^"]+)"/.exec(message);
  if (named !== null) {
    const m = new RegExp(`(?<![A-Za-z0-9_])${named[1]!}(?![A-Za-z0-9_])`).exec(ltl);
    if (m !== null) return [offsets[m.index]!, offsets[m.index + named[1]!.length]!];
  }
  return [node.offset, node.offset + node.length];
}

/** The range a problem at `path` is marked on: a proposition's or rule's text, a field's name, an object's bracket. */
function problemRange(text: string, root: Node, path: readonly (string | number)[], detail: string): [number, number] {
  const node = findNodeAtLocation(root, [...path]) ?? root;
  if (node.type === 'string' && path[0] === 'propositions' && path.length === 2)
    return conditionRange(text, node, detail.replace(/^proposition "[^"]+": /, ''));
  if (node.type === 'string' && path[0] === 'rules' && path[2] === 'ltl') return ltlRange(text, node, detail);
  // An unknown field: its name.
  if (/^unknown field|is no proposition name/.test(detail) && node.parent?.type === 'property') {
    const key = node.parent.children![0]!;
    return [key.offset, key.offset + key.length];
  }
  if (node.type === 'object' || node.type === 'array') return [node.offset, node.offset + 1];
  return [node.offset, node.offset + node.length];
}

/** Every problem of a rules file's text against a world's vocabulary and the registered tools, each at its range. */
export function checkRulesText(
  text: string,
  tools: ReadonlyMap<string, RegisteredTool>,
  vocabulary: Vocabulary,
  file = 'rules.json',
): Diagnostic[] {
  const lines = new LineIndex(text);
  const out: Diagnostic[] = [];
  const root = parseJsonTree(text, lines, out);
  if (root === undefined) return out;
  const r = checkRulesDocument(getNodeValue(root), file, tools, vocabulary);
  for (const p of r.problems) {
    const [start, end] = problemRange(text, root, p.path, p.detail);
    const source = /^unknown field|must |is no proposition name|required/.test(p.detail) ? 'schema' : 'vocabulary';
    out.push(lines.diagnostic(start, end, 'error', `${jsonPathOf(p.path)}: ${p.detail}`, source));
  }
  out.sort((a, b) => a.startLine - b.startLine || a.startColumn - b.startColumn);
  return out;
}

/**
 * Where a JSON path points in the text it was parsed from, so that an error on a configuration
 * file names the line and column an editor jumps to, next to the JSON path. Pure.
 */
import { findNodeAtLocation, parseTree, type Node as JsonNode } from 'jsonc-parser';
import { InputError } from './json.js';

/** "$.tools.navigate.goal[\"pose.x\"][0]" → ['tools', 'navigate', 'goal', 'pose.x', 0]. */
export function pathSegments(path: string): (string | number)[] | null {
  if (!path.startsWith('$')) return null;
  const out: (string | number)[] = [];
  const re = /\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/gy;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const m = re.exec(path);
    if (m === null) return null;
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(JSON.parse(m[3]!) as string);
  }
  return out;
}

/**
 * 1-based line and column of a JSON path in `text`: the property's key when it has one, else its value; the nearest
 * existing ancestor otherwise.
 */
export function locatePath(text: string, path: string): { line: number; column: number } | null {
  const root = parseTree(text);
  const segs = pathSegments(path);
  if (root === undefined || segs === null) return null;
  let node: JsonNode | undefined;
  for (let n = segs.length; n >= 0 && node === undefined; n--) node = findNodeAtLocation(root, segs.slice(0, n));
  if (node === undefined) return null;
  const at = node.parent?.type === 'property' ? node.parent.offset : node.offset;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  return { line, column: at - before.lastIndexOf('\n') };
}

/** An InputError that also names the line and column: `file:line:col: $.path: detail`. */
export class LocatedInputError extends InputError {
  constructor(
    file: string,
    path: string,
    detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(file, path, detail);
    this.message = `${file}:${line}:${column}: ${path}: ${detail}`;
  }
}

/** Adds the line and column of its JSON path to an InputError about `text` (parse errors already have them). */
export function withLocation(e: InputError, text: string): InputError {
  if (e instanceof LocatedInputError || /^\d+:\d+$/.test(e.path)) return e;
  const at = locatePath(text, e.path);
  return at === null ? e : new LocatedInputError(e.file, e.path, e.detail, at.line, at.column);
}

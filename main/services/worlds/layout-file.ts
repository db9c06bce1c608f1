/**
 * Maze layouts from JSON files: `{ "id": "my-maze", "grid": [[1,1,1],[1,0,1],…], "unit_m": 4,
 * "offset_m": 4 }` (unit and offset optional, default 4). Errors name the file and the field.
 */
import { INPUT, InputRefused, readFailure, readInputText } from '../../platform/input-files.js';
import { LayoutError, type MazeLayout, validateLayout } from '../../core/world/maze.js';
import { parseJsonText } from '../../core/input/json.js';

export async function readLayoutFile(path: string): Promise<MazeLayout> {
  let text: string;
  try {
    text = await readInputText(path, INPUT.layout);
  } catch (e) {
    if (e instanceof InputRefused) throw e;
    throw new LayoutError(path, 'file', `cannot read: ${readFailure(e)}`);
  }
  let raw: unknown;
  try {
    raw = parseJsonText(text);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const at = /position (\d+)/.exec(msg);
    if (at) {
      const before = text.slice(0, Number(at[1]));
      const line = before.split('\n').length,
        column = before.length - before.lastIndexOf('\n');
      throw new LayoutError(path, 'json', `${line}:${column}: ${msg.replace(/ in JSON at position \d+.*$/, '')}`);
    }
    throw new LayoutError(path, 'json', msg);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new LayoutError(path, '(root)', 'expected an object { id, grid, unit_m?, offset_m? }');
  const o = raw as Record<string, unknown>;
  if (typeof o['id'] !== 'string' || !/^[a-z0-9-]+$/.test(o['id']))
    throw new LayoutError(path, 'id', 'expected a name of lowercase letters, digits and -');
  if (!Array.isArray(o['grid']) || !o['grid'].every((r) => Array.isArray(r)))
    throw new LayoutError(path, 'grid', 'expected an array of rows (arrays of 0 and 1)');
  for (const k of ['unit_m', 'offset_m']) {
    if (o[k] !== undefined && typeof o[k] !== 'number') throw new LayoutError(path, k, 'expected a number');
  }
  const layout: MazeLayout = {
    id: o['id'],
    grid: o['grid'] as number[][],
    unit_m: (o['unit_m'] as number | undefined) ?? 4,
    offset_m: (o['offset_m'] as number | undefined) ?? 4,
  };
  validateLayout(layout, path);
  return layout;
}

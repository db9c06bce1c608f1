/**
 * What a world lets specifications and tool files mention. Maze worlds name their propositions in
 * the regions file shipped with the app (assets/regions/<world>.json) and have no tool-loop
 * fields or skills; the tabletop names propositions, typed fields, objects and skills.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Vocabulary as VocabularyView } from '../../api/contract.js';
import type { Vocabulary } from '../../core/loop/vocabulary.js';
import { parseJson } from '../../core/input/json.js';
import { type Region, parseRegions } from '../../core/world/regions.js';
import { POINTMAZE_IDS } from '../../backends/mujoco/pointmaze.js';
import { TABLETOP_ID, TABLETOP_VOCABULARY } from '../../backends/mujoco/tabletop.js';

export interface WorldVocabulary {
  /** What the editors show (completion, hover). */
  readonly view: VocabularyView;
  /** What registration checks run against. */
  readonly core: Vocabulary;
}

/** Every world the editors know, maze worlds first. */
export const EDITOR_WORLDS: readonly string[] = [...POINTMAZE_IDS, TABLETOP_ID];

const num = (x: number): string => String(Math.round(x * 1000) / 1000);

function describeRegion(r: Region): string {
  return r.kind === 'disk'
    ? `disk at (${num(r.center[0])}, ${num(r.center[1])}), radius ${num(r.radius)} m`
    : `box from (${num(r.min[0])}, ${num(r.min[1])}) to (${num(r.max[0])}, ${num(r.max[1])})`;
}

/**
 * The vocabulary of `world`, or null for a world the app does not have. A shipped regions file
 * that does not parse throws its InputError (file, JSON path, problem).
 */
export function worldVocabulary(assets: string, world: string): WorldVocabulary | null {
  if (world === TABLETOP_ID) {
    const v = TABLETOP_VOCABULARY;
    const fields = [
      ...Object.entries(v.fields).map(([name, type]) => ({ name, type })),
      ...v.objects.flatMap((o) => Object.entries(v.objectFields).map(([f, type]) => ({ name: `objects.${o}.${f}`, type }))),
    ];
    return {
      view: {
        world, source: null, fields, objects: [...v.objects], skills: [...v.skills],
        propositions: v.propositions.map((name) => ({ name, detail: 'a tabletop proposition' })),
      },
      core: v,
    };
  }
  if (!(POINTMAZE_IDS as readonly string[]).includes(world)) return null;
  const rel = `regions/${world}.json`;
  const file = path.join(assets, 'regions', `${world}.json`);
  let text: string | null;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    text = null;
  }
  const regions = text === null ? [] : parseRegions(parseJson(text, rel), rel).regions;
  return {
    view: {
      world, source: text === null ? null : rel, fields: [], objects: [], skills: [],
      propositions: regions.map((r) => ({ name: r.name, detail: describeRegion(r) })),
    },
    core: { fields: {}, objects: [], objectFields: {}, propositions: regions.map((r) => r.name), skills: [] },
  };
}

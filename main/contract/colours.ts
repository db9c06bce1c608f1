/**
 * One colour per proposition, the same in every view: the maze and map pictures (their regions),
 * the graph views (labelled nodes, anchors, the heat legend) and the audit replay. Sorted names take
 * the palette in order, so a task always looks the same whichever view draws it. Pure: the renderer
 * imports it.
 */

/**
 * Tableau 10 (distinguishable, colour-blind-friendlier than a hue wheel), reordered so the first
 * propositions do not look like the plan's blue prefix, orange suffix or the red robot.
 */
export const PROPOSITION_PALETTE = [
  '#59a14f',
  '#b07aa1',
  '#edc948',
  '#76b7b2',
  '#9c755f',
  '#ff9da7',
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#bab0ac',
] as const;

/** The colour of each proposition of a set (its place among the sorted names). */
export function propositionColours(props: Iterable<string>): Map<string, string> {
  const out = new Map<string, string>();
  [...new Set(props)].sort().forEach((p, i) => {
    out.set(p, i < PROPOSITION_PALETTE.length ? PROPOSITION_PALETTE[i]! : `hsl(${(i * 137.5) % 360} 55% 50%)`);
  });
  return out;
}

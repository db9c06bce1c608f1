/** Writers for the automaton: HOA v1 (for Spot and friends), our JSON, and Graphviz DOT. */
import { type BuchiAutomaton, transitionCount } from './automaton.js';
import { formatGuard, bitIndices } from './guard.js';

export type AutomatonFormat = 'hoa' | 'json' | 'dot';
export type AcceptanceKind = 'state' | 'transition';

function hoaString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, ' ')}"`;
}

/**
 * HOA v1 with explicit labels. State-based acceptance marks accepting states `{0}`; the
 * transition-based form marks every edge that leaves an accepting state (the same language).
 */
export function toHoa(a: BuchiAutomaton, acceptance: AcceptanceKind = 'state', tool = 'witness'): string {
  const lines = [
    'HOA: v1',
    `name: ${hoaString(a.formula)}`,
    `tool: ${hoaString(tool)}`,
    `States: ${a.states.length}`,
    ...a.initial.map((q) => `Start: ${q}`),
    `AP: ${a.aps.length}${a.aps.map((p) => ` ${hoaString(p)}`).join('')}`,
    'acc-name: Buchi',
    'Acceptance: 1 Inf(0)',
    `properties: trans-labels explicit-labels ${acceptance === 'state' ? 'state-acc' : 'trans-acc'}`,
    '--BODY--',
  ];
  const byState = a.states.map(() => [] as string[]);
  for (const e of a.edges) {
    const mark = acceptance === 'transition' && a.states[e.from]!.accepting ? ' {0}' : '';
    byState[e.from]!.push(`[${formatGuard(e.guard, a.aps, 'hoa')}] ${e.to}${mark}`);
  }
  a.states.forEach((s, q) => {
    const mark = acceptance === 'state' && s.accepting ? ' {0}' : '';
    lines.push(`State: ${q} ${hoaString(s.name)}${mark}`, ...byState[q]!);
  });
  lines.push('--END--');
  return lines.join('\n') + '\n';
}

export interface AutomatonJson {
  readonly format: 'witness-buchi';
  readonly version: 1;
  readonly formula: string;
  readonly aps: readonly string[];
  readonly acceptance: 'state';
  readonly initial: readonly number[];
  readonly states: readonly { readonly id: number; readonly name: string; readonly accepting: boolean }[];
  readonly edges: readonly {
    readonly from: number;
    readonly to: number;
    /** DNF: each term lists the propositions that must hold (pos) and must not (neg). */
    readonly guard: readonly { readonly pos: readonly string[]; readonly neg: readonly string[] }[];
  }[];
  readonly counts: { readonly states: number; readonly edges: number; readonly transitions: number };
}

export function toJson(a: BuchiAutomaton): AutomatonJson {
  const names = (bits: bigint): string[] => bitIndices(bits).map((i) => a.aps[i]!);
  return {
    format: 'witness-buchi',
    version: 1,
    formula: a.formula,
    aps: [...a.aps],
    acceptance: 'state',
    initial: [...a.initial],
    states: a.states.map((s, id) => ({ id, name: s.name, accepting: s.accepting })),
    edges: a.edges.map((e) => ({
      from: e.from,
      to: e.to,
      guard: e.guard.map((t) => ({ pos: names(t.pos), neg: names(t.neg) })),
    })),
    counts: { states: a.states.length, edges: a.edges.length, transitions: transitionCount(a) },
  };
}

function dotString(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function toDot(a: BuchiAutomaton): string {
  const lines = [
    'digraph buchi {',
    '  rankdir=LR;',
    `  label=${dotString(a.formula)};`,
    '  node [shape=circle, fontname="Helvetica"];',
    '  edge [fontname="Helvetica"];',
    '  start [shape=point, width=0.1];',
  ];
  a.states.forEach((s, q) => {
    lines.push(
      `  ${q} [label=${dotString(String(q))}, tooltip=${dotString(s.name)}${s.accepting ? ', shape=doublecircle' : ''}];`,
    );
  });
  for (const q of a.initial) lines.push(`  start -> ${q};`);
  for (const e of a.edges) lines.push(`  ${e.from} -> ${e.to} [label=${dotString(formatGuard(e.guard, a.aps))}];`);
  lines.push('}');
  return lines.join('\n') + '\n';
}

export function formatAutomaton(
  a: BuchiAutomaton,
  format: AutomatonFormat,
  acceptance: AcceptanceKind = 'state',
): string {
  switch (format) {
    case 'hoa':
      return toHoa(a, acceptance);
    case 'json':
      return JSON.stringify(toJson(a), null, 2) + '\n';
    case 'dot':
      return toDot(a);
  }
}

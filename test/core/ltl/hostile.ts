/**
 * Hostile formula shapes: deep chains of every operator, both associativities,
 * with and without parentheses, the same proposition repeated, unary towers and seeded random
 * mixes. Shared by the core and CLI tests.
 */
import { createRng } from '../../../main/core/random/rng.js';

export interface HostileShape {
  readonly name: string;
  readonly text: string;
  /** Refused at parse: deeper than the nesting limit (500) or longer than 10 000 characters. */
  readonly refused: boolean;
}

const atom = (i: number): string => `p${i % 7}`;

/** `a op b op c …` as written: left-associative for <->, right-associative for -> U R W, n-ary for & |. */
export function chain(op: string, n: number, at: (i: number) => string = atom, sep = ' '): string {
  return Array.from({ length: n + 1 }, (_, i) => at(i)).join(`${sep}${op}${sep}`);
}

/** `((a op b) op c) …`: left-nested through parentheses, whatever the operator's associativity. */
function leftNested(op: string, n: number, at: (i: number) => string = atom): string {
  let s = at(0);
  for (let i = 1; i <= n; i++) s = `(${s} ${op} ${at(i)})`;
  return s;
}

/** A seeded random mix: operators of every kind, some levels parenthesized, operands with ! F G. */
function mixedChain(seed: number, n: number): string {
  const rng = createRng(seed);
  const ops = ['&', '|', '->', '<->', 'U', 'R', 'W'];
  const wraps = ['', '!', 'F ', 'G '];
  let s = atom(0);
  for (let i = 1; i <= n; i++) {
    const op = ops[rng.int(0, ops.length - 1)]!;
    const a = `${wraps[rng.int(0, wraps.length - 1)]}p${i % 6}`;
    s = rng.next() < 0.5 ? `(${s} ${op} ${a})` : `${s} ${op} ${a}`;
  }
  return s;
}

export function hostileShapes(): HostileShape[] {
  const shapes: HostileShape[] = [
    { name: 'issue: 700 left-associative <-> (8 KB)', text: chain('<->', 700), refused: true },
    { name: '500 left-associative <->, at the limit', text: chain('<->', 500), refused: false },
    { name: '2400 <-> of one proposition, tightly written', text: chain('<->', 2400, () => 'a', ''), refused: true },
    { name: '500 <-> of one proposition', text: chain('<->', 500, () => 'a'), refused: false },
    {
      name: '499 <-> of temporal operands',
      text: chain('<->', 499, (i) => [`F p${i % 5}`, `G p${i % 5}`, `(p${i % 5} U q)`, `(q R p${i % 5})`][i % 4]!),
      refused: false,
    },
    { name: '2000 -> (too long)', text: chain('->', 2000), refused: true },
    { name: '! tower of 5000', text: '!'.repeat(5000) + 'a', refused: true },
    { name: '! tower of 500', text: '!'.repeat(500) + 'a', refused: false },
    { name: 'G F tower of 500', text: 'G F '.repeat(250) + 'a', refused: false },
    { name: 'F G tower of 600', text: 'F G '.repeat(300) + 'a', refused: true },
  ];
  for (const op of ['&', '|', '->', '<->', 'U', 'R', 'W']) {
    shapes.push({ name: `480 ${op} nested left in parentheses`, text: leftNested(op, 480), refused: false });
    shapes.push({ name: `900 ${op} nested left in parentheses`, text: leftNested(op, 900), refused: true });
  }
  for (const op of ['&', '|', '->', 'U', 'R', 'W']) {
    shapes.push({ name: `499 ${op} as written`, text: chain(op, 499), refused: false });
  }
  for (const op of ['->', 'U', 'R', 'W']) {
    shapes.push({ name: `1500 ${op} as written (right-associative)`, text: chain(op, 1500, () => 'a'), refused: true });
  }
  for (const seed of [1, 2, 3])
    shapes.push({ name: `random mix ${seed} of 495 operators`, text: mixedChain(seed, 495), refused: false });
  return shapes;
}

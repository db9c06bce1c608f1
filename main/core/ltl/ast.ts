/**
 * The LTL syntax tree as the user wrote it (after desugaring of alternative spellings).
 * Conjunction and disjunction are n-ary so that long chains stay shallow.
 */
export type Formula =
  | { readonly kind: 'true' }
  | { readonly kind: 'false' }
  | { readonly kind: 'ap'; readonly name: string }
  | { readonly kind: UnaryKind; readonly arg: Formula }
  | { readonly kind: 'and' | 'or'; readonly args: readonly Formula[] }
  | { readonly kind: BinaryKind; readonly left: Formula; readonly right: Formula };

/** `X` is the next operator: the LTL tools accept it, mission specifications do not (see ParseOptions.allowNext). */
type UnaryKind = 'not' | 'F' | 'G' | 'X';
/** `xor` is exclusive or; `M` is strong release, a M b = b U (a & b) (the dual of W). */
export type BinaryKind = 'implies' | 'iff' | 'xor' | 'U' | 'R' | 'W' | 'M';

export const TRUE: Formula = { kind: 'true' };
export const FALSE: Formula = { kind: 'false' };
export const ap = (name: string): Formula => ({ kind: 'ap', name });
export const not = (arg: Formula): Formula => ({ kind: 'not', arg });
export const F = (arg: Formula): Formula => ({ kind: 'F', arg });
export const G = (arg: Formula): Formula => ({ kind: 'G', arg });
export const X = (arg: Formula): Formula => ({ kind: 'X', arg });
export const and = (...args: Formula[]): Formula => (args.length === 1 ? args[0]! : { kind: 'and', args });
export const or = (...args: Formula[]): Formula => (args.length === 1 ? args[0]! : { kind: 'or', args });
const bin = (kind: BinaryKind, left: Formula, right: Formula): Formula => ({ kind, left, right });
export const U = (l: Formula, r: Formula): Formula => bin('U', l, r);
export const W = (l: Formula, r: Formula): Formula => bin('W', l, r);
export const implies = (l: Formula, r: Formula): Formula => bin('implies', l, r);
export const iff = (l: Formula, r: Formula): Formula => bin('iff', l, r);

/** Atomic propositions in order of first occurrence. */
export function atomicPropositions(f: Formula): string[] {
  const seen = new Set<string>();
  const stack: Formula[] = [f];
  const order: string[] = [];
  while (stack.length > 0) {
    const g = stack.pop()!;
    switch (g.kind) {
      case 'ap':
        if (!seen.has(g.name)) {
          seen.add(g.name);
          order.push(g.name);
        }
        break;
      case 'not':
      case 'F':
      case 'G':
      case 'X':
        stack.push(g.arg);
        break;
      case 'and':
      case 'or':
        for (let i = g.args.length - 1; i >= 0; i--) stack.push(g.args[i]!);
        break;
      case 'implies':
      case 'iff':
      case 'xor':
      case 'U':
      case 'R':
      case 'W':
      case 'M':
        stack.push(g.right, g.left);
        break;
      case 'true':
      case 'false':
        break;
    }
  }
  return order;
}

/**
 * Nodes of f's syntax tree (shared subtrees counted each time they occur), counted up to max + 1:
 * a cheap "larger than max" test for formulas of any size.
 */
export function formulaSize(f: Formula, max = Infinity): number {
  let n = 0;
  const stack = [f];
  while (stack.length > 0 && n <= max) {
    n++;
    stack.push(...formulaChildren(stack.pop()!));
  }
  return n;
}

/**
 * Operator levels of the tree (an atom is 0, `!a` is 1), computed without recursion, so that
 * a formula built elsewhere than the parser can be measured against the nesting limit before any
 * recursive pass runs over it. Shared subtrees are measured once.
 */
export function formulaDepth(f: Formula): number {
  const height = new Map<Formula, number>();
  const stack: Formula[] = [f];
  while (stack.length > 0) {
    const g = stack[stack.length - 1]!;
    if (height.has(g)) {
      stack.pop();
      continue;
    }
    const kids = formulaChildren(g);
    let h = 0;
    let ready = true;
    for (const k of kids) {
      const kh = height.get(k);
      if (kh === undefined) {
        ready = false;
        stack.push(k);
      } else if (kh + 1 > h) {
        h = kh + 1;
      }
    }
    if (ready) {
      height.set(g, h);
      stack.pop();
    }
  }
  return height.get(f)!;
}

/** A formula's direct operands. */
export function formulaChildren(g: Formula): readonly Formula[] {
  switch (g.kind) {
    case 'not':
    case 'F':
    case 'G':
    case 'X':
      return [g.arg];
    case 'and':
    case 'or':
      return g.args;
    case 'implies':
    case 'iff':
    case 'xor':
    case 'U':
    case 'R':
    case 'W':
    case 'M':
      return [g.left, g.right];
    case 'true':
    case 'false':
    case 'ap':
      return [];
  }
}

/** Whether the formula has an X anywhere (iteratively: a formula built in code may nest deeply). */
export function mentionsNext(f: Formula): boolean {
  const stack = [f];
  while (stack.length > 0) {
    const g = stack.pop()!;
    if (g.kind === 'X') return true;
    stack.push(...formulaChildren(g));
  }
  return false;
}

/**
 * The operators of the eventually / always / until fragment (missions and the `bench translate` suites are written in
 * it).
 */
const FGU_KINDS: ReadonlySet<Formula['kind']> = new Set([
  'true',
  'false',
  'ap',
  'not',
  'and',
  'or',
  'implies',
  'F',
  'G',
  'U',
]);

/** Whether f uses only F, G, U, the Boolean connectives (and, or, not, implies), atoms and constants. */
export function inFguFragment(f: Formula): boolean {
  const stack = [f];
  while (stack.length > 0) {
    const g = stack.pop()!;
    if (!FGU_KINDS.has(g.kind)) return false;
    stack.push(...formulaChildren(g));
  }
  return true;
}

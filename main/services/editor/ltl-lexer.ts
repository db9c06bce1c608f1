/**
 * The LTL tokens as the editors see them: the core scanner's tokens (the parser reads the same
 * ones) grouped into the categories highlighting and diagnostics need, with their exact extents.
 */
import { type ScannedToken, scanLtl } from '../../core/ltl/lexer.js';

type LtlTokenKind = 'ident' | 'constant' | 'operator' | 'paren' | 'invalid';

export interface LtlToken {
  readonly kind: LtlTokenKind;
  /** Offsets into the text, end exclusive. */
  readonly start: number;
  readonly end: number;
  /** The proposition's name for identifiers (unquoted), else the text. */
  readonly value: string;
}

const CATEGORY: Readonly<Record<ScannedToken['kind'], LtlTokenKind>> = {
  ident: 'ident',
  true: 'constant',
  false: 'constant',
  '(': 'paren',
  ')': 'paren',
  invalid: 'invalid',
  '!': 'operator',
  '&': 'operator',
  '|': 'operator',
  '^': 'operator',
  '->': 'operator',
  '<->': 'operator',
  U: 'operator',
  R: 'operator',
  W: 'operator',
  M: 'operator',
  F: 'operator',
  G: 'operator',
  X: 'operator',
};

/** The parser's own tokens (main/core/ltl/lexer.ts), by category for the editor. */
export function lexLtl(src: string): LtlToken[] {
  return scanLtl(src).map((t) => ({
    kind: CATEGORY[t.kind],
    start: t.start,
    end: t.end,
    value: t.kind === 'ident' ? t.value : t.text,
  }));
}

/** The token starting at `offset`, or null (the end of the text, or inside whitespace). */
export function tokenAt(tokens: readonly LtlToken[], offset: number): LtlToken | null {
  let lo = 0,
    hi = tokens.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = tokens[mid]!;
    if (t.start === offset) return t;
    if (t.start < offset) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

/**
 * The LTL parser's lexical rules (main/core/ltl/parser.ts), as a scanner that never throws and keeps
 * every token's extent: the editors need the exact range of the token a syntax error points at and
 * of every proposition, and the parser keeps neither. Test/services/editor checks that both agree.
 */

export type LtlTokenKind = 'ident' | 'constant' | 'operator' | 'paren' | 'invalid';

export interface LtlToken {
  readonly kind: LtlTokenKind;
  /** Offsets into the text, end exclusive. */
  readonly start: number;
  readonly end: number;
  /** The proposition's name for identifiers (unquoted), else the text. */
  readonly value: string;
}

const IDENT_START = /[a-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const MULTI = ['<->', '->', '&&', '||', '[]', '<>'];
const SINGLE = new Set(['!', '&', '|', 'U', 'R', 'W', 'F', 'G', 'X', 'V']);

export function lexLtl(src: string): LtlToken[] {
  const out: LtlToken[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n' || c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (IDENT_START.test(c)) {
      i++;
      while (i < src.length && IDENT_PART.test(src[i]!)) i++;
      const word = src.slice(start, i);
      out.push({ kind: word === 'true' || word === 'false' ? 'constant' : 'ident', start, end: i, value: word });
      continue;
    }
    if (c === '"') {
      i++;
      let value = '';
      let closed = false;
      while (i < src.length) {
        const d = src[i]!;
        if (d === '\\' && i + 1 < src.length && (src[i + 1] === '"' || src[i + 1] === '\\')) {
          value += src[i + 1];
          i += 2;
        } else if (d === '"') {
          i++;
          closed = true;
          break;
        } else if (d === '\n') {
          break;
        } else {
          value += d;
          i++;
        }
      }
      out.push({ kind: closed && value.length > 0 ? 'ident' : 'invalid', start, end: i, value: closed ? value : src.slice(start, i) });
      continue;
    }
    const multi = MULTI.find((m) => src.startsWith(m, i));
    if (multi !== undefined) {
      i += multi.length;
      out.push({ kind: 'operator', start, end: i, value: multi });
      continue;
    }
    i++;
    // A character outside the BMP is one invalid token, not half of one.
    if (/[\uD800-\uDBFF]/.test(c) && i < src.length && /[\uDC00-\uDFFF]/.test(src[i]!)) i++;
    if (c === '(' || c === ')') out.push({ kind: 'paren', start, end: i, value: c });
    else out.push({ kind: SINGLE.has(c) ? 'operator' : 'invalid', start, end: i, value: c });
  }
  return out;
}

/** The token starting at `offset`, or null (the end of the text, or inside whitespace). */
export function tokenAt(tokens: readonly LtlToken[], offset: number): LtlToken | null {
  let lo = 0, hi = tokens.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = tokens[mid]!;
    if (t.start === offset) return t;
    if (t.start < offset) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}

/**
 * The lexical rules of our LTL syntax, in one place: a scanner that never throws and keeps every
 * token's extent. The parser reads its tokens (and reports the first invalid one as a syntax
 * error); the editors read the same tokens for exact ranges, highlighting and hover.
 */
import type { SourcePos } from './errors.js';

type LtlTokenKind =
  | 'ident'
  | 'true'
  | 'false'
  | '('
  | ')'
  | '!'
  | '&'
  | '|'
  | '^'
  | '->'
  | '<->'
  | 'U'
  | 'R'
  | 'W'
  | 'M'
  | 'F'
  | 'G'
  | 'X'
  | 'invalid';

export interface ScannedToken {
  /**
   * What the token means: alternative spellings map to one kind ('&&' is '&', 'V' is 'R', '[]' is 'G',
   * 'xor' is '^', '1' is 'true', '0' is 'false').
   */
  readonly kind: LtlTokenKind;
  /** Offsets into the source, end exclusive. */
  readonly start: number;
  readonly end: number;
  /** The source text of the token. */
  readonly text: string;
  /** A proposition's name (unquoted); otherwise the text. */
  readonly value: string;
  readonly pos: SourcePos;
  /** Why an 'invalid' token is not a token (the parser's message). */
  readonly problem?: string;
}

const IDENT_START = /[a-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const MULTI: readonly (readonly [string, LtlTokenKind])[] = [
  ['<->', '<->'],
  ['->', '->'],
  ['&&', '&'],
  ['||', '|'],
  ['[]', 'G'],
  ['<>', 'F'],
];
const SINGLE: Readonly<Record<string, LtlTokenKind>> = {
  '(': '(',
  ')': ')',
  '!': '!',
  '&': '&',
  '|': '|',
  '^': '^',
  U: 'U',
  R: 'R',
  W: 'W',
  M: 'M',
  F: 'F',
  G: 'G',
  X: 'X',
  V: 'R',
};
/** Words that are not propositions (Spot's spellings; a quoted "xor" is a proposition). */
const KEYWORDS: ReadonlyMap<string, LtlTokenKind> = new Map([
  ['true', 'true'],
  ['false', 'false'],
  ['xor', '^'],
]);

function invalidCharacter(c: string): string {
  if (c === '-') return "unexpected '-': expected '->'";
  if (c === '<') return "unexpected '<': expected '<->' or '<>'";
  if (c === '[') return "unexpected '[': expected '[]'";
  if (/[A-Z]/.test(c)) {
    return `unexpected '${c}': expected an operator (! & | ^ -> <-> U R W M V F G X [] <>) or a proposition (a lowercase letter or '_' first, or double-quoted)`;
  }
  const shown = c.codePointAt(0)! < 32 ? `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}` : c;
  return `unexpected character '${shown}': expected a proposition, 'true', 'false', '1', '0', '(' or an operator`;
}

export function scanLtl(src: string): ScannedToken[] {
  const tokens: ScannedToken[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const push = (
    kind: LtlTokenKind,
    start: number,
    end: number,
    value = src.slice(start, end),
    problem?: string,
  ): void => {
    tokens.push({
      kind,
      start,
      end,
      text: src.slice(start, end),
      value,
      pos: { offset: start, line, column: start - lineStart + 1 },
      ...(problem !== undefined ? { problem } : {}),
    });
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '\n') {
      i++;
      line++;
      lineStart = i;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (IDENT_START.test(c)) {
      i++;
      while (i < src.length && IDENT_PART.test(src[i]!)) i++;
      push(KEYWORDS.get(src.slice(start, i)) ?? 'ident', start, i);
      continue;
    }
    if (c >= '0' && c <= '9') {
      // the constants 1 and 0 (Spot's spelling of true and false); no other numbers
      i++;
      while (i < src.length && IDENT_PART.test(src[i]!)) i++;
      const word = src.slice(start, i);
      if (word === '1') push('true', start, i);
      else if (word === '0') push('false', start, i);
      else
        push(
          'invalid',
          start,
          i,
          word,
          `unexpected '${word}': numbers are not propositions; the constants are 1 and 0 (or true and false), and a proposition starts with a lowercase letter or '_'`,
        );
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
      if (!closed)
        push(
          'invalid',
          start,
          i,
          src.slice(start, i),
          "unterminated quoted proposition: expected a closing '\"' on the same line",
        );
      else if (value.length === 0)
        push(
          'invalid',
          start,
          i,
          src.slice(start, i),
          'empty quoted proposition "": expected at least one character between the quotes',
        );
      else push('ident', start, i, value);
      continue;
    }
    const multi = MULTI.find(([m]) => src.startsWith(m, i));
    if (multi !== undefined) {
      i += multi[0].length;
      push(multi[1], start, i);
      continue;
    }
    i++;
    const kind = SINGLE[c];
    if (kind !== undefined) {
      push(kind, start, i);
      continue;
    }
    // A character outside the BMP is one invalid token, not half of one.
    if (/[\uD800-\uDBFF]/.test(c) && i < src.length && /[\uDC00-\uDFFF]/.test(src[i]!)) i++;
    push('invalid', start, i, src.slice(start, i), invalidCharacter(c));
  }
  return tokens;
}

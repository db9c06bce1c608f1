import { type Formula, type BinaryKind } from './ast.js';
import { LtlBudgetError, LtlSyntaxError, type SourcePos } from './errors.js';

export const DEFAULT_MAX_FORMULA_LENGTH = 10_000;
export const DEFAULT_MAX_NESTING = 500;

export interface ParseOptions {
  /** Longest accepted input, in characters. */
  readonly maxLength?: number;
  /** Deepest accepted nesting of parentheses, unary and right-associative operators. */
  readonly maxNesting?: number;
}

type TokKind =
  | 'ident' | 'true' | 'false' | '(' | ')' | '!' | '&' | '|' | '->' | '<->'
  | 'U' | 'R' | 'W' | 'F' | 'G' | 'X' | 'eof';

interface Token {
  readonly kind: TokKind;
  readonly text: string;
  readonly value: string;
  readonly pos: SourcePos;
}

const IDENT_START = /[a-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

/** Spellings of each operator, for messages. */
const SHOW: Record<TokKind, string> = {
  ident: 'a proposition', true: "'true'", false: "'false'", '(': "'('", ')': "')'", '!': "'!'",
  '&': "'&'", '|': "'|'", '->': "'->'", '<->': "'<->'", U: "'U'", R: "'R'", W: "'W'", F: "'F'",
  G: "'G'", X: "'X'", eof: 'end of input',
};

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const posAt = (offset: number): SourcePos => ({ offset, line, column: offset - lineStart + 1 });
  const push = (kind: TokKind, start: number, end: number, value = src.slice(start, end)): void => {
    tokens.push({ kind, text: src.slice(start, end), value, pos: posAt(start) });
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
      const word = src.slice(start, i);
      push(word === 'true' ? 'true' : word === 'false' ? 'false' : 'ident', start, i);
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
      if (!closed) throw new LtlSyntaxError(posAt(start), 'unterminated quoted proposition: expected a closing \'"\' on the same line');
      if (value.length === 0) throw new LtlSyntaxError(posAt(start), 'empty quoted proposition "": expected at least one character between the quotes');
      push('ident', start, i, value);
      continue;
    }
    const two = src.slice(i, i + 2);
    const three = src.slice(i, i + 3);
    if (three === '<->') { push('<->', start, i + 3); i += 3; continue; }
    if (two === '->') { push('->', start, i + 2); i += 2; continue; }
    if (two === '&&') { push('&', start, i + 2); i += 2; continue; }
    if (two === '||') { push('|', start, i + 2); i += 2; continue; }
    if (two === '[]') { push('G', start, i + 2); i += 2; continue; }
    if (two === '<>') { push('F', start, i + 2); i += 2; continue; }
    switch (c) {
      case '(': case ')': case '!': case '&': case '|':
      case 'U': case 'R': case 'W': case 'F': case 'G': case 'X':
        push(c, start, i + 1);
        i++;
        continue;
      case 'V':
        push('R', start, i + 1);
        i++;
        continue;
      default:
        break;
    }
    if (c === '-') throw new LtlSyntaxError(posAt(start), "unexpected '-': expected '->'");
    if (c === '<') throw new LtlSyntaxError(posAt(start), "unexpected '<': expected '<->' or '<>'");
    if (c === '[') throw new LtlSyntaxError(posAt(start), "unexpected '[': expected '[]'");
    if (/[A-Z]/.test(c)) {
      throw new LtlSyntaxError(posAt(start),
        `unexpected '${c}': expected an operator (! & | -> <-> U R W V F G [] <>) or a proposition (a lowercase letter or '_' first, or double-quoted)`);
    }
    const shown = c.codePointAt(0)! < 32 ? `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}` : c;
    throw new LtlSyntaxError(posAt(start), `unexpected character '${shown}': expected a proposition, 'true', 'false', '(' or an operator`);
  }
  tokens.push({ kind: 'eof', text: '', value: '', pos: posAt(src.length) });
  return tokens;
}

const NEXT_MESSAGE =
  'the next operator X is not supported: specifications must be stutter-invariant (LTL without next)';

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Token[], private readonly maxNesting: number) {}

  private peek(): Token { return this.toks[this.i]!; }
  private next(): Token { return this.toks[this.i++]!; }

  parseAll(): Formula {
    const f = this.iff();
    const t = this.peek();
    if (t.kind !== 'eof') {
      if (t.kind === ')') throw new LtlSyntaxError(t.pos, "unmatched ')': expected an operator or end of input");
      if (t.kind === 'X') throw new LtlSyntaxError(t.pos, NEXT_MESSAGE);
      throw new LtlSyntaxError(t.pos, `expected an operator or end of input, found ${describe(t)}`);
    }
    return f;
  }

  private enter(t: Token): void {
    if (++this.depth > this.maxNesting) {
      throw new LtlBudgetError('depth', this.maxNesting,
        `${t.pos.line}:${t.pos.column}: formula nests deeper than ${this.maxNesting} levels`);
    }
  }

  private iff(): Formula {
    let left = this.implies();
    while (this.peek().kind === '<->') {
      const op = this.next();
      left = { kind: 'iff', left, right: this.operand(op, () => this.implies()) };
    }
    return left;
  }

  private implies(): Formula {
    return this.rightChain(['->'], () => this.or(), () => 'implies');
  }

  private or(): Formula {
    return this.junction('or', '|', () => this.and());
  }

  private and(): Formula {
    return this.junction('and', '&', () => this.temporal());
  }

  /** n-ary & and |: one node however long the chain, so long conjunctions stay shallow. */
  private junction(kind: 'and' | 'or', tok: TokKind, operand: () => Formula): Formula {
    const args = [operand()];
    while (this.peek().kind === tok) {
      const op = this.next();
      args.push(this.operand(op, operand));
    }
    return args.length === 1 ? args[0]! : { kind, args };
  }

  private temporal(): Formula {
    return this.rightChain(['U', 'R', 'W'], () => this.unary(), (k) => k as BinaryKind);
  }

  /** Right-associative chains, parsed iteratively and folded from the right. */
  private rightChain(ops: TokKind[], operand: () => Formula, kindOf: (k: TokKind) => BinaryKind): Formula {
    const items = [operand()];
    const kinds: BinaryKind[] = [];
    while (ops.includes(this.peek().kind)) {
      const op = this.next();
      this.enter(op);
      kinds.push(kindOf(op.kind));
      items.push(this.operand(op, operand));
    }
    let acc = items[items.length - 1]!;
    for (let k = kinds.length - 1; k >= 0; k--) acc = { kind: kinds[k]!, left: items[k]!, right: acc };
    this.depth -= kinds.length;
    return acc;
  }

  private operand(op: Token, parse: () => Formula): Formula {
    const t = this.peek();
    if (t.kind === 'eof' || t.kind === ')' || isBinary(t.kind)) {
      throw new LtlSyntaxError(t.pos, `expected a formula after '${op.text}', found ${describe(t)}`);
    }
    return parse();
  }

  private unary(): Formula {
    const t = this.peek();
    if (t.kind === '!' || t.kind === 'F' || t.kind === 'G') {
      this.next();
      this.enter(t);
      const arg = this.operand(t, () => this.unary());
      this.depth--;
      return { kind: t.kind === '!' ? 'not' : t.kind, arg };
    }
    return this.primary();
  }

  private primary(): Formula {
    const t = this.next();
    switch (t.kind) {
      case 'true': return { kind: 'true' };
      case 'false': return { kind: 'false' };
      case 'ident': return { kind: 'ap', name: t.value };
      case '(': {
        this.enter(t);
        if (this.peek().kind === ')') throw new LtlSyntaxError(this.peek().pos, "expected a formula inside '()', found ')'");
        const f = this.iff();
        const close = this.peek();
        if (close.kind !== ')') {
          if (close.kind === 'X') throw new LtlSyntaxError(close.pos, NEXT_MESSAGE);
          throw new LtlSyntaxError(close.pos,
            `expected ')' to close '(' at ${t.pos.line}:${t.pos.column}, found ${describe(close)}`);
        }
        this.next();
        this.depth--;
        return f;
      }
      case 'X':
        throw new LtlSyntaxError(t.pos, NEXT_MESSAGE);
      case 'eof':
        throw new LtlSyntaxError(t.pos, 'expected a formula, found end of input');
      default:
        throw new LtlSyntaxError(t.pos, `expected a formula, found ${describe(t)}`);
    }
  }
}

function isBinary(k: TokKind): boolean {
  return k === '&' || k === '|' || k === '->' || k === '<->' || k === 'U' || k === 'R' || k === 'W';
}

function describe(t: Token): string {
  if (t.kind === 'ident') return `proposition '${t.text}'`;
  if (t.kind === 'eof') return SHOW.eof;
  return `'${t.text}'`;
}

/**
 * Parses LTL without next. Throws LtlSyntaxError (with 1-based line:column) on malformed input and
 * LtlBudgetError when the input is longer or deeper than the budget allows.
 */
export function parseLtl(src: string, options: ParseOptions = {}): Formula {
  const maxLength = options.maxLength ?? DEFAULT_MAX_FORMULA_LENGTH;
  if (src.length > maxLength) {
    throw new LtlBudgetError('length', maxLength,
      `formula is ${src.length} characters long; the limit is ${maxLength}`);
  }
  return new Parser(tokenize(src), options.maxNesting ?? DEFAULT_MAX_NESTING).parseAll();
}

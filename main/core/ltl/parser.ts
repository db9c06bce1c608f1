import { type Formula, type BinaryKind } from './ast.js';
import { LtlBudgetError, LtlSyntaxError, type SourcePos } from './errors.js';
import { scanLtl } from './lexer.js';

export const DEFAULT_MAX_FORMULA_LENGTH = 10_000;
export const DEFAULT_MAX_NESTING = 500;

export interface ParseOptions {
  /** Longest accepted input, in characters. */
  readonly maxLength?: number;
  /**
   * Deepest accepted nesting: both of the parentheses and operators being read and of the syntax
   * tree built (every operator node counts, whatever its associativity), so that no recursive pass
   * over a parsed formula goes deeper than this.
   */
  readonly maxNesting?: number;
  /**
   * Accept the next operator `X` (default false). The LTL tools (`witness ltl …`) accept it; mission
   * specifications do not: a continuous execution is observed as a stutter-invariant label word, so
   * a mission refuses `X` with the stutter-invariance message at its position.
   */
  readonly allowNext?: boolean;
}

type TokKind =
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
  | 'eof';

interface Token {
  readonly kind: TokKind;
  readonly text: string;
  readonly value: string;
  readonly pos: SourcePos;
}

/** Spellings of each operator, for messages. */
const SHOW: Record<TokKind, string> = {
  ident: 'a proposition',
  true: "'true'",
  false: "'false'",
  '(': "'('",
  ')': "')'",
  '!': "'!'",
  '&': "'&'",
  '|': "'|'",
  '^': "'^'",
  '->': "'->'",
  '<->': "'<->'",
  U: "'U'",
  R: "'R'",
  W: "'W'",
  M: "'M'",
  F: "'F'",
  G: "'G'",
  X: "'X'",
  eof: 'end of input',
};

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  for (const t of scanLtl(src)) {
    if (t.kind === 'invalid') throw new LtlSyntaxError(t.pos, t.problem ?? `unexpected '${t.text}'`);
    tokens.push({ kind: t.kind, text: t.text, value: t.value, pos: t.pos });
  }
  const lines = src.split('\n');
  tokens.push({
    kind: 'eof',
    text: '',
    value: '',
    pos: { offset: src.length, line: lines.length, column: lines[lines.length - 1]!.length + 1 },
  });
  return tokens;
}

const NEXT_MESSAGE =
  'the next operator X is not supported: specifications must be stutter-invariant (LTL without next)';

class Parser {
  private i = 0;
  private depth = 0;
  /** Height of each operator node built (leaves are 0): the tree's depth, checked as it grows. */
  private readonly heights = new Map<Formula, number>();
  constructor(
    private readonly toks: Token[],
    private readonly maxNesting: number,
    private readonly allowNext: boolean,
  ) {}

  private peek(): Token {
    return this.toks[this.i]!;
  }
  private next(): Token {
    return this.toks[this.i++]!;
  }

  parseAll(): Formula {
    const f = this.iff();
    const t = this.peek();
    if (t.kind !== 'eof') {
      if (t.kind === ')') throw new LtlSyntaxError(t.pos, "unmatched ')': expected an operator or end of input");
      if (t.kind === 'X' && !this.allowNext) throw new LtlSyntaxError(t.pos, NEXT_MESSAGE);
      throw new LtlSyntaxError(t.pos, `expected an operator or end of input, found ${describe(t)}`);
    }
    return f;
  }

  private tooDeep(t: Token): LtlBudgetError {
    return new LtlBudgetError(
      'depth',
      this.maxNesting,
      `${t.pos.line}:${t.pos.column}: formula nests deeper than ${this.maxNesting} levels`,
    );
  }

  private enter(t: Token): void {
    if (++this.depth > this.maxNesting) throw this.tooDeep(t);
  }

  /**
   * Records a new operator node one level above its deepest operand; refuses it (at its operator
   * token) when the tree would be deeper than the limit. Left-associative chains such as
   * `a <-> b <-> c …` grow the tree without nesting while they are read, so this is where they stop.
   */
  private built(f: Formula, children: readonly Formula[], at: Token): Formula {
    let h = 0;
    for (const c of children) h = Math.max(h, this.heights.get(c) ?? 0);
    if (h + 1 > this.maxNesting) throw this.tooDeep(at);
    this.heights.set(f, h + 1);
    return f;
  }

  // Each level calls the next one directly (no closures between them), so that a parenthesis costs
  // few stack frames: the nesting budget, not the call stack, is what stops a deep formula.

  private iff(): Formula {
    let left = this.implies();
    while (this.peek().kind === '<->') {
      const op = this.next();
      this.expectOperand(op);
      const right = this.implies();
      left = this.built({ kind: 'iff', left, right }, [left, right], op);
    }
    return left;
  }

  /** Right-associative: a -> b -> c is a -> (b -> c), read iteratively and folded from the right. */
  private implies(): Formula {
    const first = this.or();
    if (this.peek().kind !== '->') return first;
    const items = [first];
    const ops: Token[] = [];
    while (this.peek().kind === '->') {
      const op = this.next();
      this.enter(op);
      ops.push(op);
      this.expectOperand(op);
      items.push(this.or());
    }
    return this.foldRight(items, ops);
  }

  /** n-ary | (and & below): one node however long the chain, so long disjunctions stay shallow. */
  private or(): Formula {
    const first = this.xor();
    if (this.peek().kind !== '|') return first;
    const args = [first];
    const at = this.peek();
    while (this.peek().kind === '|') {
      const op = this.next();
      this.expectOperand(op);
      args.push(this.xor());
    }
    return this.built({ kind: 'or', args }, args, at);
  }

  /** Exclusive or, left-associative, between | and & (Spot's precedence). */
  private xor(): Formula {
    let left = this.and();
    while (this.peek().kind === '^') {
      const op = this.next();
      this.expectOperand(op);
      const right = this.and();
      left = this.built({ kind: 'xor', left, right }, [left, right], op);
    }
    return left;
  }

  private and(): Formula {
    const first = this.temporal();
    if (this.peek().kind !== '&') return first;
    const args = [first];
    const at = this.peek();
    while (this.peek().kind === '&') {
      const op = this.next();
      this.expectOperand(op);
      args.push(this.temporal());
    }
    return this.built({ kind: 'and', args }, args, at);
  }

  /** U R W M: one level, right-associative, like -> above. */
  private temporal(): Formula {
    const first = this.unary();
    if (!isTemporal(this.peek().kind)) return first;
    const items = [first];
    const ops: Token[] = [];
    while (isTemporal(this.peek().kind)) {
      const op = this.next();
      this.enter(op);
      ops.push(op);
      this.expectOperand(op);
      items.push(this.unary());
    }
    return this.foldRight(items, ops);
  }

  /** items[0] op[0] items[1] op[1] … folded from the right; the operators' nesting ends here. */
  private foldRight(items: readonly Formula[], ops: readonly Token[]): Formula {
    let acc = items[items.length - 1]!;
    for (let k = ops.length - 1; k >= 0; k--) {
      const left = items[k]!;
      const kind: BinaryKind = ops[k]!.kind === '->' ? 'implies' : (ops[k]!.kind as BinaryKind);
      acc = this.built({ kind, left, right: acc }, [left, acc], ops[k]!);
    }
    this.depth -= ops.length;
    return acc;
  }

  /** After an operator: a formula must follow. */
  private expectOperand(op: Token): void {
    const t = this.peek();
    if (t.kind === 'eof' || t.kind === ')' || isBinary(t.kind)) {
      throw new LtlSyntaxError(t.pos, `expected a formula after '${op.text}', found ${describe(t)}`);
    }
  }

  private unary(): Formula {
    const t = this.peek();
    if (t.kind === '!' || t.kind === 'F' || t.kind === 'G' || (t.kind === 'X' && this.allowNext)) {
      this.next();
      this.enter(t);
      this.expectOperand(t);
      const arg = this.unary();
      this.depth--;
      return this.built({ kind: t.kind === '!' ? 'not' : t.kind, arg }, [arg], t);
    }
    return this.primary();
  }

  private primary(): Formula {
    const t = this.next();
    switch (t.kind) {
      case 'true':
        return { kind: 'true' };
      case 'false':
        return { kind: 'false' };
      case 'ident':
        return { kind: 'ap', name: t.value };
      case '(': {
        this.enter(t);
        if (this.peek().kind === ')')
          throw new LtlSyntaxError(this.peek().pos, "expected a formula inside '()', found ')'");
        const f = this.iff();
        const close = this.peek();
        if (close.kind !== ')') {
          if (close.kind === 'X' && !this.allowNext) throw new LtlSyntaxError(close.pos, NEXT_MESSAGE);
          throw new LtlSyntaxError(
            close.pos,
            `expected ')' to close '(' at ${t.pos.line}:${t.pos.column}, found ${describe(close)}`,
          );
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

function isTemporal(k: TokKind): boolean {
  return k === 'U' || k === 'R' || k === 'W' || k === 'M';
}

function isBinary(k: TokKind): boolean {
  return (
    k === '&' || k === '|' || k === '^' || k === '->' || k === '<->' || k === 'U' || k === 'R' || k === 'W' || k === 'M'
  );
}

function describe(t: Token): string {
  if (t.kind === 'ident') return `proposition '${t.text}'`;
  if (t.kind === 'eof') return SHOW.eof;
  return `'${t.text}'`;
}

/**
 * Parses LTL, without next unless `options.allowNext`. Throws LtlSyntaxError (with 1-based line:column) on malformed
 * input and LtlBudgetError when the input is longer or deeper than the budget allows.
 */
export function parseLtl(src: string, options: ParseOptions = {}): Formula {
  const maxLength = options.maxLength ?? DEFAULT_MAX_FORMULA_LENGTH;
  if (src.length > maxLength) {
    throw new LtlBudgetError(
      'length',
      maxLength,
      `formula is ${src.length} characters long; the limit is ${maxLength}`,
    );
  }
  return new Parser(tokenize(src), options.maxNesting ?? DEFAULT_MAX_NESTING, options.allowNext ?? false).parseAll();
}

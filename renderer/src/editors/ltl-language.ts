/**
 * The `ltl` language in Monaco: tokens by the LTL parser's lexical rules (main/core/ltl/parser.ts),
 * hover (what an operator means, what a proposition is in the chosen world, the automaton's size)
 * and completion (the world's propositions, the operators, the specification patterns as snippets).
 * Diagnostics come from the app's LTL engine through the API (checks.ts); hover reads the latest check
 * instead of asking again.
 */
import type { LtlCheckResult, LtlPatternTemplate, Vocabulary } from '../../../main/contract/api.js';
import { monaco } from './monaco.js';

export const LTL = 'ltl';

export interface LtlContext {
  /** The vocabulary of the world specifications are checked against, once loaded. */
  vocabulary(): Vocabulary | null;
  /** The latest check of a model; `current` is false while a newer one is pending. */
  lastCheck(model: monaco.editor.ITextModel): { result: LtlCheckResult; current: boolean } | null;
  /** The specification pattern catalogue, once loaded (offered as snippets). */
  patterns(): readonly LtlPatternTemplate[];
}

/**
 * The patterns as completion items: the pattern's name inserts its formula with a tab stop per parameter (Tab moves
 * on). The word being completed stops at '-', so the name is also matched by what is typed before it.
 */
function patternSuggestions(
  patterns: readonly LtlPatternTemplate[],
  range: monaco.IRange,
): monaco.languages.CompletionItem[] {
  return patterns.map((p) => ({
    label: { label: p.name, detail: ` ${p.params.map((x) => x.name).join(' ')}`, description: 'pattern' },
    kind: monaco.languages.CompletionItemKind.Snippet,
    detail: `${p.family === 'property' ? 'property pattern' : 'robotic mission pattern'}: ${p.description}`,
    documentation: {
      value: [
        p.description + '.',
        ...p.params.map((x) => `- **${x.name}**: ${x.description}`),
        'Placeholders are propositions; parenthesise a compound formula put in one.',
      ].join('\n'),
    },
    insertText: p.snippet,
    insertTextRules: monaco.languages.CompletionItemInsertTextRule.InsertAsSnippet,
    filterText: p.name,
    sortText: `3${p.name}`,
    range,
  }));
}

/** The operators, with their spellings and meaning (for hover and completion). */
const OPERATORS: { op: string; also?: string; insert: string; doc: string }[] = [
  { op: 'G', also: '[]', insert: 'G ', doc: 'G φ — always: φ holds now and at every later step.' },
  { op: 'F', also: '<>', insert: 'F ', doc: 'F φ — eventually: φ holds now or at some later step.' },
  { op: 'U', insert: 'U ', doc: 'φ U ψ — until: ψ holds at some step, and φ holds at every step before it.' },
  {
    op: 'R',
    also: 'V',
    insert: 'R ',
    doc: 'φ R ψ — release: ψ holds up to and including the first step where φ holds, or forever.',
  },
  { op: 'W', insert: 'W ', doc: 'φ W ψ — weak until: φ U ψ, or φ forever.' },
  {
    op: 'M',
    insert: 'M ',
    doc: 'φ M ψ — strong release: ψ U (φ & ψ); ψ holds up to and including a step where φ holds, and that step comes.',
  },
  { op: '!', insert: '!', doc: '!φ — not.' },
  { op: '&', also: '&&', insert: '& ', doc: 'φ & ψ — and.' },
  { op: '|', also: '||', insert: '| ', doc: 'φ | ψ — or.' },
  {
    op: '^',
    also: 'xor',
    insert: '^ ',
    doc: 'φ ^ ψ — exclusive or: exactly one of φ and ψ (binds tighter than |, looser than &).',
  },
  { op: '->', insert: '-> ', doc: 'φ -> ψ — implies.' },
  { op: '<->', insert: '<-> ', doc: 'φ <-> ψ — if and only if.' },
  {
    op: 'X',
    insert: 'X ',
    doc: 'X φ — next: not supported in specifications, which must be stutter-invariant (LTL without next); the `witness ltl` tools accept it.',
  },
];
const ALIAS = new Map<string, string>(
  OPERATORS.flatMap((o) => [[o.op, o.op], ...(o.also ? [[o.also, o.op] as [string, string]] : [])]),
);

function automatonLine(check: { result: LtlCheckResult; current: boolean } | null): string {
  if (check === null) return '_checking…_';
  const { result, current } = check;
  const a = result.automaton;
  const line =
    a !== undefined
      ? `Büchi automaton: **${a.states}** states, **${a.edges}** edges, **${a.accepting}** accepting`
      : `No automaton: ${result.diagnostics.find((d) => d.severity === 'error')?.message ?? 'the formula does not translate'}`;
  return current ? line : `${line} _(checking the latest edit…)_`;
}

let registered = false;

export function registerLtl(ctx: LtlContext): void {
  if (registered) return;
  registered = true;
  monaco.languages.register({ id: LTL, extensions: ['.ltl'], aliases: ['LTL', 'ltl'] });
  monaco.languages.setLanguageConfiguration(LTL, {
    wordPattern: /"(?:[^"\\\n]|\\["\\])*"|[a-z_][A-Za-z0-9_]*|<->|->|&&|\|\||\[\]|<>|[!&|^UFRWMGVX01]/,
    brackets: [['(', ')']],
    autoClosingPairs: [
      { open: '(', close: ')' },
      { open: '"', close: '"' },
    ],
    surroundingPairs: [
      { open: '(', close: ')' },
      { open: '"', close: '"' },
    ],
  });
  monaco.languages.setMonarchTokensProvider(LTL, {
    defaultToken: 'invalid',
    tokenizer: {
      root: [
        [/[ \t\r\n]+/, 'white'],
        [
          /[a-z_][A-Za-z0-9_]*/,
          { cases: { 'true|false': 'keyword.constant', xor: 'operator', '@default': 'variable' } },
        ],
        [/[01](?![A-Za-z0-9_])/, 'keyword.constant'],
        [/"(?:[^"\\\n]|\\["\\])+"/, 'string'],
        [/"[^"\n]*/, 'string.invalid'],
        [/<->|->|&&|\|\||[!&|^]/, 'operator'],
        [/\[\]|<>|[GFURWVM]/, 'keyword'],
        [/X/, 'keyword.invalid'],
        [/[()]/, '@brackets'],
        [/./, 'invalid'],
      ],
    },
  });

  monaco.languages.registerHoverProvider(LTL, {
    provideHover(model, position) {
      const word = model.getWordAtPosition(position);
      if (word === null) return null;
      const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
      const check = ctx.lastCheck(model);
      const parts: string[] = [];
      const op = ALIAS.get(word.word);
      if (op !== undefined) {
        parts.push(OPERATORS.find((o) => o.op === op)!.doc);
      } else if (/^[a-z_"]/.test(word.word)) {
        const name = word.word.startsWith('"') ? word.word.slice(1, -1).replace(/\\(["\\])/g, '$1') : word.word;
        const v = ctx.vocabulary();
        const known = v?.propositions.find((p) => p.name === name);
        const problem = check?.result.diagnostics.find(
          (d) => d.source === 'vocabulary' && d.startLine === position.lineNumber && d.startColumn === word.startColumn,
        );
        if (name === 'true' || name === 'false')
          parts.push(`\`${name}\` — the constant (also written ${name === 'true' ? '1' : '0'}).`);
        else if (problem !== undefined) parts.push(`⚠ ${problem.message}`);
        else if (known !== undefined) parts.push(`**${name}** — ${known.detail} (${v!.world})`);
        else parts.push(`**${name}** — a proposition${v === null ? '' : ` (not checked against ${v.world})`}`);
      }
      parts.push(automatonLine(check));
      return { range, contents: parts.map((value) => ({ value })) };
    },
  });

  monaco.languages.registerCompletionItemProvider(LTL, {
    triggerCharacters: ['"'],
    provideCompletionItems(model, position) {
      const w = model.getWordUntilPosition(position);
      const range = new monaco.Range(position.lineNumber, w.startColumn, position.lineNumber, w.endColumn);
      const v = ctx.vocabulary();
      const props = (v?.propositions ?? []).map((p, i) => ({
        label: p.name,
        kind: monaco.languages.CompletionItemKind.Variable,
        detail: p.detail,
        documentation: `A proposition of ${v!.world}: holds where the robot is in the region.`,
        insertText: /^[a-z_][A-Za-z0-9_]*$/.test(p.name) ? p.name : JSON.stringify(p.name),
        sortText: `0${String(i).padStart(4, '0')}`,
        range,
      }));
      const ops = OPERATORS.filter((o) => o.op !== 'X').map((o, i) => ({
        label: o.op,
        kind: monaco.languages.CompletionItemKind.Operator,
        detail: o.doc.split(' — ')[1]?.split(':')[0] ?? '',
        documentation: o.doc,
        insertText: o.insert,
        sortText: `1${String(i).padStart(4, '0')}`,
        range,
      }));
      const constants = ['true', 'false'].map((c) => ({
        label: c,
        kind: monaco.languages.CompletionItemKind.Constant,
        insertText: c,
        sortText: `2${c}`,
        range,
      }));
      return { suggestions: [...props, ...ops, ...constants, ...patternSuggestions(ctx.patterns(), range)] };
    },
  });
}

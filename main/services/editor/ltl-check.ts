/**
 * Checks an LTL specification for the editor: syntax errors at the exact range of the offending
 * token, each occurrence of a proposition the world does not define, and the Büchi automaton's
 * size when the formula translates within the editor's budget.
 */
import type { Diagnostic, LtlCheckResult } from '../../contract/api.js';
import { atomicPropositions } from '../../core/ltl/ast.js';
import { LtlBudgetError, LtlSyntaxError } from '../../core/ltl/errors.js';
import { DEFAULT_MAX_FORMULA_LENGTH, parseLtl } from '../../core/ltl/parser.js';
import { printLtl } from '../../core/ltl/printer.js';
import { translateFormula } from '../../core/ltl/translate.js';
import { closest } from '../../core/loop/vocabulary.js';
import { lexLtl, tokenAt } from './ltl-lexer.js';
import { LineIndex } from './text-range.js';

/**
 * The editor checks on every pause in typing, in the process that also runs missions: a formula
 * whose automaton takes longer than this is reported as too large here rather than blocking.
 */
const EDITOR_TRANSLATION_BUDGET_MS = 2000;

export interface LtlVocabulary {
  readonly world: string;
  readonly propositions: readonly string[];
}

/** Short list of names for messages. */
function listOf(names: readonly string[], most = 12): string {
  return names.length <= most ? names.join(', ') : `${names.slice(0, most).join(', ')}, … (${names.length} in all)`;
}

export function checkLtl(text: string, vocabulary: LtlVocabulary | null, clock?: () => number): LtlCheckResult {
  const lines = new LineIndex(text);
  // Over the parser's length budget nothing more is read: lexing megabytes for the editor would hold
  // up the process that answers the E-STOP, for a text the parser refuses anyway.
  if (text.length > DEFAULT_MAX_FORMULA_LENGTH) {
    return {
      diagnostics: [
        lines.everything(
          'error',
          `formula is ${text.length} characters long; the limit is ${DEFAULT_MAX_FORMULA_LENGTH}`,
          'budget',
        ),
      ],
      propositions: [],
      unknown: [],
      checkedAgainst: null,
    };
  }
  const tokens = lexLtl(text);
  const diagnostics: Diagnostic[] = [];
  const result: LtlCheckResult = { diagnostics, propositions: [], unknown: [], checkedAgainst: null };

  let formula = null;
  try {
    formula = parseLtl(text);
  } catch (e) {
    if (e instanceof LtlSyntaxError) {
      const t = tokenAt(tokens, e.pos.offset);
      diagnostics.push(lines.diagnostic(e.pos.offset, t?.end ?? e.pos.offset, 'error', e.detail, 'syntax'));
    } else if (e instanceof LtlBudgetError) {
      // The nesting budget names its place as "line:column: …"; the length budget has none.
      const at = /^(\d+):(\d+): (.*)$/.exec(e.message);
      if (at !== null) {
        const line = Number(at[1]),
          column = Number(at[2]);
        diagnostics.push({
          severity: 'error',
          message: at[3]!,
          startLine: line,
          startColumn: column,
          endLine: line,
          endColumn: column + 1,
          source: 'budget',
        });
      } else {
        diagnostics.push(lines.everything('error', e.message, 'budget'));
      }
    } else {
      throw e;
    }
  }

  const idents = tokens.filter((t) => t.kind === 'ident');
  result.propositions = formula !== null ? atomicPropositions(formula) : [...new Set(idents.map((t) => t.value))];
  if (vocabulary !== null && vocabulary.propositions.length > 0) {
    result.checkedAgainst = vocabulary.world;
    const known = new Set(vocabulary.propositions);
    const unknown = new Set<string>();
    for (const t of idents) {
      if (known.has(t.value)) continue;
      unknown.add(t.value);
      const hint = closest(t.value, vocabulary.propositions);
      diagnostics.push(
        lines.diagnostic(
          t.start,
          t.end,
          'error',
          `unknown proposition "${t.value}"${hint !== null ? ` (did you mean ${hint}?)` : ''}; ${vocabulary.world} has ${listOf(vocabulary.propositions)}`,
          'vocabulary',
        ),
      );
    }
    result.unknown = [...unknown];
  } else if (vocabulary !== null) {
    diagnostics.push({
      severity: 'info',
      message: `${vocabulary.world} names no propositions (it has no regions file), so they are not checked`,
      startLine: 1,
      startColumn: 1,
      endLine: 1,
      endColumn: 1,
      source: 'vocabulary',
    });
  }

  if (formula !== null) {
    result.formula = printLtl(formula);
    try {
      const a = translateFormula(formula, {
        timeLimit_ms: EDITOR_TRANSLATION_BUDGET_MS,
        ...(clock ? { clock } : {}),
      }).automaton;
      result.automaton = {
        states: a.states.length,
        edges: a.edges.length,
        accepting: a.states.filter((s) => s.accepting).length,
      };
    } catch (e) {
      if (!(e instanceof LtlBudgetError)) throw e;
      diagnostics.push(
        lines.everything('warning', `the automaton is too large to build while editing: ${e.message}`, 'budget'),
      );
    }
  }
  diagnostics.sort((a, b) => a.startLine - b.startLine || a.startColumn - b.startColumn);
  return result;
}

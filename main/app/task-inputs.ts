/**
 * A task's specification and regions, read and checked the same way for every kind of mission (on
 * an embedded world's latent graph, on a robot's map graph) and for planning alone: the formula
 * parsed and translated, the regions it names, and how the inputs are named in messages (CLI flags or
 * API request fields).
 */
import { WitnessError } from '../contract/errors.js';
import type { Formula } from '../core/ltl/ast.js';
import type { BuchiAutomaton } from '../core/ltl/automaton.js';
import { parseLtl } from '../core/ltl/parser.js';
import { translateFormula } from '../core/ltl/translate.js';
import { LtlBudgetError, LtlSyntaxError } from '../core/ltl/errors.js';
import { InputError, parseJson } from '../core/input/json.js';
import { type RegionSet, parseRegions } from '../core/world/regions.js';
import { readRegions } from '../services/plan/inputs.js';

/**
 * How the task's inputs are named in messages (CLI flags, or API request fields), where they are, and the code of a bad
 * value.
 */
export interface InputNames {
  readonly spec: string;
  readonly regions: string;
  readonly start: string;
  /** Where a named input is: the flag itself, or its JSON path in the request. */
  at(name: string): string;
  readonly code: 'invalid-input' | 'invalid-params';
}

export const CLI_NAMES: InputNames = {
  spec: '--spec',
  regions: 'regions',
  start: '--start',
  at: (n) => n,
  code: 'invalid-input',
};
export const API_NAMES: InputNames = {
  spec: 'spec',
  regions: 'regions',
  start: 'start',
  at: (n) => `$.${n}`,
  code: 'invalid-params',
};

/** The task's regions: a file, or a document's text (the console sends the editor's text). */
export type RegionsInput = { readonly file: string } | { readonly text: string };

/** A specification parsed and translated. */
export interface Spec {
  readonly formula: Formula;
  readonly automaton: BuchiAutomaton;
}

/** Parses and translates a specification; a syntax error is located as `<name>:L:C`. */
export function specOf(text: string, names: InputNames = CLI_NAMES): Spec {
  const name = names.spec;
  let formula: Formula;
  try {
    formula = parseLtl(text);
  } catch (e) {
    if (e instanceof LtlSyntaxError)
      throw new WitnessError('invalid-spec', `${name}:${e.line}:${e.column}: ${e.detail}`, {
        path: names.at(name),
        line: e.line,
        column: e.column,
      });
    // too long, or nested too deep (that one names its place as "L:C: …")
    if (e instanceof LtlBudgetError)
      throw new WitnessError('budget', `${name}:${/^\d+:\d+: /.test(e.message) ? '' : ' '}${e.message}`, {
        path: names.at(name),
      });
    throw e;
  }
  try {
    return { formula, automaton: translateFormula(formula).automaton };
  } catch (e) {
    if (e instanceof LtlBudgetError)
      throw new WitnessError('budget', `${name}: ${e.message}`, { path: names.at(name) });
    throw e;
  }
}

/**
 * The task's regions: every proposition of the formula must be a region of the document; regions
 * the formula does not mention play no part (AP_φ).
 */
export async function taskRegions(
  input: RegionsInput,
  aps: readonly string[],
  names: InputNames = CLI_NAMES,
): Promise<{ regions: RegionSet; text: string }> {
  let all: RegionSet, text: string, where: string;
  if ('file' in input) {
    all = await readRegions(input.file);
    text = JSON.stringify(all);
    where = input.file;
  } else {
    text = input.text;
    where = names.regions;
    try {
      all = parseRegions(parseJson(input.text, names.regions), names.regions);
    } catch (e) {
      if (e instanceof InputError)
        throw new WitnessError('invalid-regions', `${names.regions} ${e.path}: ${e.detail}`, { path: e.path });
      throw e;
    }
  }
  const unknown = aps.filter((ap) => !all.regions.some((r) => r.name === ap));
  if (unknown.length > 0) {
    throw new WitnessError(
      'invalid-spec',
      `${names.spec} mentions ${unknown.join(', ')}, which ${where} does not define (it has ${all.regions.map((r) => r.name).join(', ') || 'no regions'})`,
      { path: names.at(names.spec) },
    );
  }
  return { regions: { ...all, regions: all.regions.filter((r) => aps.includes(r.name)) }, text };
}

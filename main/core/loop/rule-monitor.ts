/**
 * The rules' monitor over the tool loop. Each rule's automaton (core/ltl) is tracked as the set of
 * states some run can be in; the word is one letter per executed call: the rules' propositions
 * evaluated on the call and the state observed after it. Before a call, `predict` steps a copy on the
 * call and the state its tool's postconditions declare (core/loop/predict.ts): a letter after which
 * some rule has no accepting continuation (a safety rule broken, a response or a bounded recurrence
 * made impossible) refuses the call. Propositions the declaration leaves open are tried both ways,
 * and the call is refused when either way breaks a rule: nothing moves on a maybe. After the call,
 * `advance` steps on the verified sensor evidence, never the prediction; a rule broken there is a
 * violation for the operator. Pure.
 */
import { LetterSteps } from '../ltl/forbidden.js';
import type { RuleSet } from './rules.js';
import type { RegisteredTool } from './tools.js';
import { type WorldState, holds, observed } from './conditions.js';
import { predictState } from './predict.js';
import { overlaps, worldPattern } from './rules.js';
import { references } from './cel-ast.js';
import type { ToolCall } from './loop.js';

/** A verdict of the rules on one call: before it (predicted) or after it (on evidence). */
export interface RuleVerdict {
  readonly phase: 'predicted' | 'observed';
  readonly ok: boolean;
  /** The propositions that hold on the letter judged (the predicted one when open ones were tried both ways). */
  readonly letter: readonly string[];
  /** Propositions the tool's declaration leaves open (predicted only). */
  readonly open: readonly string[];
  /** The first broken rule, its LTL as written and the proposition that decides it. */
  readonly rule?: string;
  readonly ltl?: string;
  readonly proposition?: string;
  /** Every broken rule. */
  readonly broken: readonly string[];
  /** The values the propositions read, by concrete path (the evidence of the verdict). */
  readonly observed: Record<string, unknown>;
  /** Propositions that could not be evaluated on this call (counted false), with why. */
  readonly errors: readonly { readonly proposition: string; readonly error: string }[];
}

export interface RuleStatus {
  readonly name: string;
  readonly states: readonly number[];
  readonly viable: boolean;
}

/** The most propositions left open by a declaration that are tried both ways (2^n letters). */
const MAX_OPEN_PROPOSITIONS = 10;

interface Tracked {
  readonly name: string;
  readonly ltl: string;
  readonly aps: readonly string[];
  readonly steps: LetterSteps;
  readonly initial: readonly number[];
  states: number[];
}

export class RuleMonitor {
  private readonly tracked: Tracked[];

  constructor(readonly set: RuleSet) {
    this.tracked = set.rules.map((r) => ({
      name: r.name,
      ltl: r.ltl,
      aps: r.automaton.aps,
      steps: new LetterSteps(r.automaton),
      initial: [...r.automaton.initial],
      states: [...r.automaton.initial].sort((x, y) => x - y),
    }));
  }

  /** The propositions on a call and a state: which hold, what they read, which could not be evaluated. */
  letter(
    call: ToolCall,
    state: WorldState,
  ): { holds: string[]; observed: Record<string, unknown>; errors: RuleVerdict['errors'] } {
    const ctx = { ...state, call: { tool: call.tool, args: call.args ?? {} } };
    const out: string[] = [];
    const errors: { proposition: string; error: string }[] = [];
    const seen: Record<string, unknown> = {};
    for (const p of this.set.propositions) {
      const v = holds(p.expr, ctx);
      if (v === true) out.push(p.name);
      else if (typeof v === 'string') errors.push({ proposition: p.name, error: v });
      Object.assign(seen, observed(p.expr, ctx));
    }
    return { holds: out, observed: seen, errors };
  }

  /** Would the call, with its tool's declared effect, break a rule? The monitor does not move. */
  predict(call: ToolCall, tool: RegisteredTool, state: WorldState): RuleVerdict {
    const p = predictState(tool, call.args, state);
    const l = this.letter(call, p.state);
    const open = this.set.propositions
      .filter((x) =>
        references(x.expr).some((r) => {
          const w = worldPattern(r);
          return w !== null && p.unknown.some((u) => overlaps(w, u));
        }),
      )
      .map((x) => x.name)
      .slice(0, MAX_OPEN_PROPOSITIONS);
    const base = l.holds.filter((x) => !open.includes(x));
    for (let m = 0; m < 1 << open.length; m++) {
      const letter = [...base, ...open.filter((_, i) => (m & (1 << i)) !== 0)];
      const v = this.judge(letter, 'predicted', open, l);
      if (!v.ok) return v;
    }
    return this.judge(l.holds, 'predicted', open, l);
  }

  /** Steps every rule on the evidence of an executed call; the verdict says which rules it broke. */
  advance(call: ToolCall, state: WorldState): RuleVerdict {
    const l = this.letter(call, state);
    const v = this.judge(l.holds, 'observed', [], l);
    for (const t of this.tracked) t.states = t.steps.next(t.states, l.holds);
    return v;
  }

  /** Restarts a rule from its initial states (after the operator has answered its violation). */
  restart(name: string): void {
    const t = this.tracked.find((x) => x.name === name);
    if (t !== undefined) t.states = [...t.initial].sort((x, y) => x - y);
  }

  status(): RuleStatus[] {
    return this.tracked.map((t) => ({ name: t.name, states: [...t.states], viable: t.steps.viable(t.states) }));
  }

  /**
   * What each rule demands of the next call, in words (for a planner's prompt): the propositions of
   * which one must hold on it (the call that makes none of them hold breaks the rule), or each that
   * must not hold on it (alone, it breaks the rule).
   */
  obligations(): string[] {
    return this.tracked.flatMap((t) => demands(t, t.states));
  }

  /**
   * The obligations the calls so far have made pending: what each rule demands of the next call beyond what it
   * demands from its start (a safety rule's standing prohibition is the rule itself, not something pending).
   */
  pending(): string[] {
    return this.tracked.flatMap((t) => {
      const standing = demands(t, t.initial);
      return demands(t, t.states).filter((d) => !standing.includes(d));
    });
  }

  private judge(
    letter: readonly string[],
    phase: RuleVerdict['phase'],
    open: readonly string[],
    l: ReturnType<RuleMonitor['letter']>,
  ): RuleVerdict {
    const broken = this.tracked.filter((t) => t.steps.dead(t.states, letter));
    const first = broken[0];
    return {
      phase,
      ok: first === undefined,
      letter: [...letter],
      open: [...open],
      ...(first !== undefined ? { rule: first.name, ltl: first.ltl, proposition: deciding(first, letter) } : {}),
      broken: broken.map((t) => t.name),
      observed: l.observed,
      errors: l.errors,
    };
  }
}

/** What one rule in `states` demands of the next call, in words. */
function demands(t: Tracked, states: readonly number[]): string[] {
  if (!t.steps.viable(states)) return [`${t.name}: already broken; no next call can satisfy it`];
  const alive = t.aps.filter((ap) => !t.steps.dead(states, [ap]));
  if (t.steps.dead(states, []))
    return [`${t.name}: the next call must make ${alive.length === 1 ? alive[0] : `one of ${alive.join(', ')}`} hold`];
  return t.aps.filter((ap) => !alive.includes(ap)).map((ap) => `${t.name}: the next call must not make ${ap} hold`);
}

/**
 * The proposition that decides a broken rule: the first of the rule's propositions whose flip on this
 * letter keeps the rule alive; else those of them that hold (or all of them, when none holds).
 */
function deciding(t: Tracked, letter: readonly string[]): string {
  for (const ap of t.aps) {
    const flipped = letter.includes(ap) ? letter.filter((x) => x !== ap) : [...letter, ap];
    if (!t.steps.dead(t.states, flipped)) return ap;
  }
  const on = t.aps.filter((ap) => letter.includes(ap));
  return (on.length > 0 ? on : t.aps).join(', ');
}

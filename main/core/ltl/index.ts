/** The LTL engine's public surface. */
export * from './ast.js';
export * from './errors.js';
export { parseLtl, DEFAULT_MAX_FORMULA_LENGTH, DEFAULT_MAX_NESTING, type ParseOptions } from './parser.js';
export { printLtl, printProposition, type PrintStyle } from './printer.js';
export {
  translateLtl,
  translateFormula,
  type TranslateOptions,
  type Translation,
  type TranslationStats,
} from './translate.js';
export * from './automaton.js';
export { type Term, type Guard, termHolds, guardHolds, formatGuard, formatTerm, simplifyGuard } from './guard.js';
export {
  DEFAULT_MAX_STATES,
  DEFAULT_MAX_TRANSITIONS,
  DEFAULT_MAX_EDGES,
  DEFAULT_MAX_FORMULA_NODES,
  DEFAULT_TIME_LIMIT_MS,
  type BudgetOptions,
} from './budget.js';
export { pruneAutomaton, type PruneOptions, type PruneReport, type Pruned, type DroppedTerm } from './prune.js';
export { StateSetMonitor, monitorWord, type MonitorStep } from './monitor.js';
export { evaluateLasso, type Lasso, type Letter } from './lasso.js';
export { acceptsLasso } from './accept.js';
export {
  toHoa,
  toJson,
  toDot,
  formatAutomaton,
  type AutomatonFormat,
  type AcceptanceKind,
  type AutomatonJson,
} from './formats.js';
export * from './templates.js';

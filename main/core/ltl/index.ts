/** The LTL engine's public surface. */
export * from './ast.js';
export * from './errors.js';
export { parseLtl } from './parser.js';
export { translateLtl } from './translate.js';
export * from './automaton.js';
export { evaluateLasso } from './lasso.js';
export * from './templates.js';

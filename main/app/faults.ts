/**
 * Fault injection for tests (core/world/faults.ts), as the front ends reach it: the CLI's hidden
 * `--inject-fault` flag parses its text here; worlds opened with `OpenOptions.faults` inject them.
 */
export { FAULT_SYNTAX, type WorldFault, parseFault } from '../core/world/faults.js';

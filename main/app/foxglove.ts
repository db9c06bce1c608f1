/**
 * Foxglove and Lichtblick beside Witness: the live server over the audit log a run writes
 * (services/audit/foxglove-live.ts), for the CLI's `--foxglove PORT`.
 */
export { serveFoxgloveLive } from '../services/audit/foxglove-live.js';

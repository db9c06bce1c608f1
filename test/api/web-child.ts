/**
 * `witness web` for the tests that attack it: the real process entry (main/witness.ts, as
 * bin/witness.js runs it), which also ends when its stdin closes, so a test process that dies first
 * leaves no server behind.
 */
import { main } from '../../main/witness.js';

process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
process.stdin.resume();
process.exitCode = await main(process.argv.slice(2));
// Web mode closed (a signal, or stdin's end): the stdin this helper reads would keep the process alive.
process.stdin.destroy();

/**
 * The spawned tier's child: the real CLI entry (main/witness.ts, as bin/witness.js runs it) that
 * reports its own peak resident set on stderr when it exits, however it exits normally.
 */
import { main } from '../../main/witness.js';

process.on('exit', () => process.stderr.write(`\nfuzz-peak-rss-kib ${process.resourceUsage().maxRSS}\n`));
process.stdout.on('error', () => undefined);
process.exitCode = await main(process.argv.slice(2));

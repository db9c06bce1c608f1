/**
 * TEST CODE: a process that makes two scratch folders, removes one, prints the other, then works
 * synchronously for `argv[2]` milliseconds (a signal's default action ends it there) or ends at once.
 */
import { writeFileSync } from 'node:fs';
import { scratchFolder } from '../../main/platform/scratch.js';

const done = scratchFolder('witness-scratch-test-done-');
done.remove();
const s = scratchFolder('witness-scratch-test-');
writeFileSync(`${s.dir}/work.sqlite`, 'x');
process.stdout.write(`${s.dir}\n`);
for (const end = Date.now() + Number(process.argv[2]); Date.now() < end;) {
  // Synchronous work: no handler would get a turn.
}

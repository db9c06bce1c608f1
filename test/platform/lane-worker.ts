/**
 * A WorkerLane's worker for its tests: counts the requests it has answered (state: what a fresh
 * worker has not seen), echoes, reports progress, throws, spins, and allocates without end on request.
 */
import { serveLane } from '../../main/platform/workers.js';
import { WitnessError } from '../../main/contract/errors.js';

let answered = 0;
const hoard: unknown[] = [];

serveLane(
  async (method, params, progress) => {
    answered++;
    switch (method) {
      case 'echo':
        return params;
      case 'steps':
        for (let i = 1; i <= (params as number); i++) {
          progress({ done: i });
          await new Promise((r) => setTimeout(r, 5));
        }
        return 'stepped';
      case 'later':
        return new Promise((r) => setTimeout(() => r(params), 50));
      case 'witness':
        throw new WitnessError('not-sqlite', '/x/a.sqlite: not an SQLite database', {
          file: '/x/a.sqlite',
          path: '$.file',
          line: 3,
          column: 7,
        });
      case 'bug':
        throw new TypeError('undefined is not a function');
      case 'spin':
        for (;;) {
          /* a read that never ends */
        }
      case 'hoard':
        for (;;) hoard.push(new Array(1 << 16).fill(answered));
      default:
        throw new Error(`no ${method}`);
    }
  },
  () => ({ answered }),
);

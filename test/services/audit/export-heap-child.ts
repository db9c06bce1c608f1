/**
 * The child of export-stream.test.ts's memory test (run with a small --max-old-space-size): exports
 * the audit database argv[2] to JSON Lines at argv[3] and prints the export's summary, the file's
 * size and the highest heap use sampled while it ran, as one JSON line.
 */
import { statSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { openAuditReadOnly } from '../../../main/services/audit/store.js';
import { exportAudit } from '../../../main/services/audit/export.js';

const [db, out, format] = [process.argv[2]!, process.argv[3]!, (process.argv[4] ?? 'jsonl') as 'jsonl' | 'mcap'];
const before = getHeapStatistics().used_heap_size;
let peak = before;
const sample = setInterval(() => {
  peak = Math.max(peak, getHeapStatistics().used_heap_size);
}, 5);
const d = openAuditReadOnly(db);
try {
  const summary = await exportAudit(d, format, out);
  peak = Math.max(peak, getHeapStatistics().used_heap_size);
  process.stdout.write(
    JSON.stringify({ summary, bytes: statSync(out).size, heapBefore: before, heapPeak: peak }) + '\n',
  );
} finally {
  clearInterval(sample);
  d.close();
}

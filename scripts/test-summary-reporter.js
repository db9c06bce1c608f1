// A `node --test` reporter beside the spec reporter: it writes one JSON object with each test file's
// duration and the run's counts, which scripts/run-tests.js prints at the end of the run.
// Shape: { files: [{ file, ms }], counts: { tests, pass, fail, skipped, ... } }.

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* summaryReporter(source) {
  /** @type {Map<string, number>} */
  const files = new Map();
  // Runners that report no file-level test (newer Node): the file's top-level tests, summed.
  /** @type {Map<string, number>} */
  const topLevel = new Map();
  /** @type {Record<string, number>} */
  const counts = {};
  for await (const event of source) {
    const data = event.data ?? {};
    // Each file runs as one top-level test named by its path; its completion carries the file's duration.
    if (event.type === 'test:complete' && data.nesting === 0 && data.file && data.name === data.file) {
      files.set(data.file, (files.get(data.file) ?? 0) + (data.details?.duration_ms ?? 0));
    } else if (event.type === 'test:complete' && data.nesting === 0 && data.file) {
      topLevel.set(data.file, (topLevel.get(data.file) ?? 0) + (data.details?.duration_ms ?? 0));
    }
    // The runner's closing diagnostics: "tests 846", "pass 835", "fail 0", "skipped 11", ...
    if (event.type === 'test:diagnostic' && data.nesting === 0 && !data.file) {
      const match = /^(\w+) (\d+(?:\.\d+)?)$/.exec(String(data.message));
      if (match) counts[match[1]] = Number(match[2]);
    }
  }
  for (const [file, ms] of topLevel) if (!files.has(file)) files.set(file, ms);
  yield JSON.stringify({ files: [...files].map(([file, ms]) => ({ file, ms })), counts }) + '\n';
}

/**
 * The fuzzing suite's spawned tier: hostile files given to the real `witness` commands, each in a
 * child process of its own, so that what only a process shows is checked too: the exit code (0–4,
 * never 70 and never a signal), the message on stderr, ending in bounded time, and the peak
 * resident set (the child reports its own maxRSS when it exits; see child.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { encodeDataset } from '../../main/services/datasets/format.js';
import { encodeNpz } from '../../main/services/datasets/npz.js';
import { sampleDataset } from '../core/data/sample.js';
import { hostileJson, mutatedBytes, mutatedText } from './mutate.js';
import { BAG_SEEDS, ROOT, auditSeed, shippedOnnx, writeBundle } from './targets.js';
import { bagCliTargets } from './targets-bags.js';
import { auditDbCliTargets } from './targets-auditdb.js';

export interface CliTarget {
  readonly name: string;
  /** The command, for the figures (FILE stands for the hostile file). */
  readonly command: string;
  /** Writes one case's files into `dir` and returns the arguments. */
  readonly cases: () => fc.Arbitrary<(dir: string) => string[]> | Promise<fc.Arbitrary<(dir: string) => string[]>>;
  /** Exit codes a correct reader may give for some input. */
  readonly exits: readonly number[];
}

export interface CliStats {
  readonly target: string;
  readonly command: string;
  cases: number;
  readonly exits: Record<string, number>;
  worst_ms: number;
  worst_rss_mb: number;
  readonly bugs: string[];
}

/** Ending at all: generous, far past every budget the commands are given (2 s for translation). */
const CASE_TIMEOUT_MS = 60_000;
/**
 * Bounded memory: a child's peak resident set must stay below this (the fixed cost of a Node process with onnxruntime
 * and SQLite is ~150 MiB).
 */
const RSS_LIMIT_MB = 1024;

const asset = (rel: string): string => readFileSync(path.join(ROOT, 'assets', rel), 'utf8');
const assetBytes = (rel: string): Uint8Array => new Uint8Array(readFileSync(path.join(ROOT, 'assets', rel)));
const LTL_TOKENS = ['G', 'F', 'U', 'R', 'M', 'X', '!', '&', '|', '^', '->', '<->', '(', ')', '1', ' <-> e1', 'e0'];

const file =
  (name: string, content: string | Uint8Array, args: (f: string, dir: string) => string[]) =>
  (dir: string): string[] => {
    const f = path.join(dir, name);
    writeFileSync(f, content);
    return args(f, dir);
  };

export function cliTargets(): CliTarget[] {
  const specs = ['F e2 & G F e1 & G F e4 & G !e0', 'G(e1 -> F e2) & G F e3 & G !e0', asset('specs/patrol.ltl')];
  return [
    {
      name: 'ltl-translate',
      command: 'witness ltl translate --time-limit-ms 2000 -f FILE',
      exits: [0, 2, 3],
      cases: () =>
        mutatedText(specs, LTL_TOKENS).map((t) =>
          file('f.ltl', t, (f) => ['ltl', 'translate', '--time-limit-ms', '2000', '-f', f]),
        ),
    },
    {
      name: 'ltl-check',
      command: "witness ltl check -f FILE --prefix 'e0;e1' --cycle 'e2;e4'",
      exits: [0, 1, 2, 3],
      cases: () =>
        mutatedText(specs, LTL_TOKENS).map((t) =>
          file('f.ltl', t, (f) => [
            'ltl',
            'check',
            '--time-limit-ms',
            '2000',
            '-f',
            f,
            '--prefix',
            'e0;e1',
            '--cycle',
            'e2;e4',
          ]),
        ),
    },
    {
      name: 'plan-graph',
      command: "witness plan --graph FILE --spec 'G F shelf_a & G F pack & G !wet'",
      exits: [0, 1, 2, 3],
      cases: () =>
        hostileJson([asset('graphs/warehouse.json')]).map((t) =>
          file('g.json', t, (f) => [
            'plan',
            '--graph',
            f,
            '--spec',
            'G F shelf_a & G F pack & G !wet',
            '--time-limit-ms',
            '5000',
          ]),
        ),
    },
    {
      name: 'map-regions',
      command: 'witness graph from-map assets/maps/lab.yaml --regions FILE --out G',
      exits: [0, 2],
      cases: () =>
        hostileJson([asset('maps/lab-regions.json')]).map((t) => (dir: string) => {
          writeFileSync(path.join(dir, 'lab.yaml'), asset('maps/lab.yaml'));
          writeFileSync(path.join(dir, 'lab.pgm'), assetBytes('maps/lab.pgm'));
          writeFileSync(path.join(dir, 'r.json'), t);
          return [
            'graph',
            'from-map',
            path.join(dir, 'lab.yaml'),
            '--regions',
            path.join(dir, 'r.json'),
            '--out',
            path.join(dir, 'g.json'),
          ];
        }),
    },
    {
      name: 'map-image',
      command: 'witness graph from-map lab.yaml (image: FILE) --regions R --out G',
      exits: [0, 2],
      cases: () =>
        mutatedBytes([assetBytes('maps/lab.pgm')]).map((img) => (dir: string) => {
          writeFileSync(path.join(dir, 'lab.yaml'), asset('maps/lab.yaml'));
          writeFileSync(path.join(dir, 'lab.pgm'), img);
          writeFileSync(path.join(dir, 'r.json'), asset('maps/lab-regions.json'));
          return [
            'graph',
            'from-map',
            path.join(dir, 'lab.yaml'),
            '--regions',
            path.join(dir, 'r.json'),
            '--out',
            path.join(dir, 'g.json'),
          ];
        }),
    },
    {
      name: 'tool-file',
      command:
        'witness act --world tabletop --tools DIR(FILE) --goal … --planner scripted --plan assets/plans/warehouse.json --no-audit',
      exits: [0, 1, 2],
      cases: () =>
        hostileJson([asset('tools/pick.json')]).map((t) => (dir: string) => {
          mkdirSync(path.join(dir, 'tools'));
          writeFileSync(path.join(dir, 'tools', 'pick.json'), t);
          writeFileSync(path.join(dir, 'tools', 'place.json'), asset('tools/place.json'));
          return [
            'act',
            '--world',
            'tabletop',
            '--tools',
            path.join(dir, 'tools'),
            '--goal',
            'objects.red_bin.on == "shelf_c4"',
            '--planner',
            'scripted',
            '--plan',
            path.join(ROOT, 'assets/plans/warehouse.json'),
            '--replans',
            '0',
            '--no-audit',
          ];
        }),
    },
    {
      name: 'wds',
      command: 'witness data info FILE',
      exits: [0, 2],
      cases: () =>
        mutatedBytes([encodeDataset(sampleDataset())]).map((b) => file('d.wds', b, (f) => ['data', 'info', f])),
    },
    {
      name: 'npz',
      command: 'witness data import FILE --world pointmaze-medium --out D',
      exits: [0, 2],
      cases: () =>
        mutatedBytes([encodeNpz({ ...sampleDataset([6, 6], 4, 2), worldId: 'pointmaze-medium' })]).map((b) =>
          file('d.npz', b, (f, dir) => [
            'data',
            'import',
            f,
            '--world',
            'pointmaze-medium',
            '--out',
            path.join(dir, 'd.wds'),
          ]),
        ),
    },
    {
      name: 'rosbag',
      command:
        'witness data import FILE (.mcap or .db3) --world pointmaze-medium --pose-topic /odom --action-topic /cmd_vel --out D',
      exits: [0, 2],
      cases: () => {
        const bag = (name: string) => (b: Uint8Array) =>
          file(name, b, (f, dir) => [
            'data',
            'import',
            f,
            '--world',
            'pointmaze-medium',
            '--pose-topic',
            '/odom',
            '--action-topic',
            '/cmd_vel',
            '--out',
            path.join(dir, 'd.wds'),
          ]);
        return fc.oneof(
          mutatedBytes([BAG_SEEDS.mcap]).map(bag('b.mcap')),
          mutatedBytes([BAG_SEEDS.db3]).map(bag('b.db3')),
        );
      },
    },
    {
      name: 'onnx',
      command: 'witness model check DIR (embed.onnx: FILE, hashes fixed up)',
      exits: [0, 2],
      cases: () => {
        const { embed, policy } = shippedOnnx();
        return mutatedBytes([embed]).map((b) => (dir: string) => {
          writeBundle(path.join(dir, 'm'), b, policy);
          return ['model', 'check', path.join(dir, 'm')];
        });
      },
    },
    {
      name: 'audit-db',
      command: 'witness audit verify FILE',
      exits: [0, 1, 2],
      cases: async () => {
        const seedDir = mkdtempSync(path.join(tmpdir(), 'witness-fuzz-audit-'));
        const seed = await auditSeed(seedDir);
        rmSync(seedDir, { recursive: true, force: true });
        return mutatedBytes([seed]).map((b) => file('a.sqlite', b, (f) => ['audit', 'verify', f]));
      },
    },
    {
      name: 'ros2-config',
      command: 'witness ros2 check FILE',
      exits: [0, 1, 2, 4],
      cases: () =>
        hostileJson([asset('ros2/lab-turtlebot3.json')]).map((t) => (dir: string) => {
          // The configuration names its regions file relative to itself (../maps/lab-regions.json).
          mkdirSync(path.join(dir, 'maps'));
          mkdirSync(path.join(dir, 'ros2'));
          writeFileSync(path.join(dir, 'maps', 'lab-regions.json'), asset('maps/lab-regions.json'));
          writeFileSync(path.join(dir, 'ros2', 'c.json'), t);
          return ['ros2', 'check', path.join(dir, 'ros2', 'c.json')];
        }),
    },
    ...bagCliTargets(),
    ...auditDbCliTargets(),
  ];
}

const CHILD = path.join(ROOT, 'dist/test/fuzz/child.js');

interface Outcome {
  readonly code: number | null;
  readonly signal: string | null;
  readonly stderr: string;
  readonly stdout: string;
  readonly ms: number;
  readonly rss_mb: number | null;
}

function runChild(args: string[], cwd: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [CHILD, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, WITNESS_AUDIT: path.join(cwd, 'audit.sqlite'), NO_COLOR: '1' },
    });
    let stderr = '',
      stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout = (stdout + d).slice(-20_000);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-20_000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CASE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const m = /fuzz-peak-rss-kib (\d+)/.exec(stderr);
      resolve({
        code,
        signal,
        stdout,
        stderr: stderr.replace(/\n?fuzz-peak-rss-kib \d+\n?/, ''),
        ms: performance.now() - t0,
        rss_mb: m ? Number(m[1]) / 1024 : null,
      });
    });
  });
}

/** Runs `runs` seeded cases of a spawned target; every deviation is a bug, listed in the stats. */
export async function fuzzCli(t: CliTarget, o: { runs: number; seed: number }): Promise<CliStats> {
  const stats: CliStats = {
    target: t.name,
    command: t.command,
    cases: 0,
    exits: {},
    worst_ms: 0,
    worst_rss_mb: 0,
    bugs: [],
  };
  const makers = fc.sample(await t.cases(), { seed: o.seed, numRuns: o.runs });
  for (const [i, make] of makers.entries()) {
    const dir = mkdtempSync(path.join(tmpdir(), `witness-fuzz-cli-${t.name}-`));
    try {
      const args = make(dir);
      const r = await runChild(args, dir);
      stats.cases++;
      const key = r.signal !== null ? r.signal : String(r.code);
      stats.exits[key] = (stats.exits[key] ?? 0) + 1;
      stats.worst_ms = Math.max(stats.worst_ms, r.ms);
      stats.worst_rss_mb = Math.max(stats.worst_rss_mb, r.rss_mb ?? 0);
      const lastLine = r.stderr.trim().split('\n').pop() ?? '';
      const problem =
        r.signal !== null
          ? `ended by ${r.signal}${r.ms >= CASE_TIMEOUT_MS ? ` after ${CASE_TIMEOUT_MS} ms` : ''}`
          : !t.exits.includes(r.code ?? -1)
            ? `exit ${r.code}`
            : // A refusal says why: `error: …` on stderr, or (exit 3, an infeasible plan) the reason in the report.
              r.code !== 0 && r.code !== 1 && !/error|infeasible/i.test(r.stderr + r.stdout)
              ? `exit ${r.code} with no message`
              : r.rss_mb === null
                ? 'no peak RSS reported'
                : r.rss_mb > RSS_LIMIT_MB
                  ? `peak RSS ${r.rss_mb.toFixed(0)} MiB`
                  : null;
      if (problem !== null) stats.bugs.push(`case ${i} (seed ${o.seed}): ${problem}: ${lastLine.slice(0, 300)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return stats;
}

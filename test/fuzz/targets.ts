/**
 * Every parser and file reader Witness has, as a fuzzing target: valid seeds to mutate, how to feed
 * one input to the reader in this process, and (for the spawned tier) the CLI command that reads
 * the same kind of file. A reader passes when it returns or refuses with a WitnessError whose code
 * is not `internal`: anything else (a TypeError, a RangeError, a stack overflow) is a bug.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { PNG } from 'pngjs';
import { evaluateLasso, parseLtl, translateLtl } from '../../main/core/ltl/index.js';
import { parseJson } from '../../main/core/input/json.js';
import { labelledGraph } from '../../main/core/plan/labelled-graph.js';
import { parseRegions } from '../../main/core/world/regions.js';
import { parseMapYaml, readMap } from '../../main/services/maps/read.js';
import { parseTool, registerTools } from '../../main/core/loop/tools.js';
import { holds } from '../../main/core/loop/conditions.js';
import { TABLETOP_VOCABULARY } from '../../main/backends/mujoco/tabletop.js';
import { decodeDataset, encodeDataset } from '../../main/services/datasets/format.js';
import { decodeNpz, encodeNpz } from '../../main/services/datasets/npz.js';
import { validateManifest } from '../../main/core/models/manifest.js';
import { readGraph, encodeGraph, type GraphArtifact } from '../../main/services/graph/store.js';
import { buildGraph } from '../../main/core/graph/build.js';
import { parseRos2Config } from '../../main/backends/ros2/config.js';
import { readLayoutFile } from '../../main/services/worlds/layout-file.js';
import { auditQuery, auditRuns, auditVerify } from '../../main/app/audit.js';
import { sampleDataset } from '../core/data/sample.js';
import { writeFixture } from '../api/audit-fixture.js';
import { hostileJson, mutatedBytes, mutatedText } from './mutate.js';
import { importBag } from '../../main/app/bag-import.js';
import { writeDb3, writeMcap } from '../services/datasets/rosbag2-fixtures.js';
import { wsTargets } from './targets-ws.js';
import { bagTargets } from './targets-bags.js';
import { llmTargets } from './targets-llm.js';
import { auditDbTargets } from './targets-auditdb.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const asset = (rel: string): string => readFileSync(path.join(ROOT, 'assets', rel), 'utf8');
const assetBytes = (rel: string): Uint8Array => new Uint8Array(readFileSync(path.join(ROOT, 'assets', rel)));
const assetsIn = (dir: string, ext: string): string[] =>
  readdirSync(path.join(ROOT, 'assets', dir))
    .filter((f) => f.endsWith(ext))
    .map((f) => asset(path.join(dir, f)));

/** One fuzzing target: the reader, fed one input in this process. */
export interface Target<T = unknown> {
  readonly name: string;
  /** What is read, in words, for the figures table. */
  readonly reads: string;
  readonly input: () => fc.Arbitrary<T>;
  /** Reads one input; `scratch` is a folder of this case's own. Returns or throws. */
  readonly run: (input: T, scratch: string) => unknown;
  /** Relative weight of cases (slow readers run fewer). */
  readonly weight?: number;
}

const LTL_TOKENS = [
  'G',
  'F',
  'U',
  'R',
  'W',
  'X',
  'M',
  '!',
  '&',
  '|',
  '^',
  ' xor ',
  '->',
  '<->',
  '&&',
  '||',
  '(',
  ')',
  'true',
  'false',
  '1',
  '0',
  'e0',
  'e1',
  ' <-> e1',
  ' -> ',
  ' U ',
  'G F ',
  'X X ',
  '!!!!',
];
const ltlSeeds = (): string[] => [
  ...readdirSync(path.join(ROOT, 'assets/specs')).flatMap((f) =>
    asset(`specs/${f}`)
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.startsWith('#')),
  ),
  'F e2 & G F e1 & G F e4 & G !e0',
  'G(e1 -> F e2) & G F e3 & G !e0',
  '!e0 U (e1 & F(e2 & F e3))',
  'e0 <-> e1 <-> e2 <-> e3',
];

/** A small audit database with two runs, written through the real writer. */
async function auditSeed(dir: string): Promise<Uint8Array> {
  const file = path.join(dir, 'seed.sqlite');
  await writeFixture(file, 300);
  // One file: fold the write-ahead log into the database.
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('journal_mode = DELETE');
  db.close();
  return new Uint8Array(readFileSync(file));
}

function graphArtifact(): GraphArtifact {
  const rows: number[] = [],
    terms: number[] = [];
  for (let t = 0; t < 40; t++) {
    rows.push(t, t % 3);
    terms.push(t === 19 || t === 39 ? 1 : 0);
  }
  const graph = buildGraph(Float32Array.from(rows), 2, Uint8Array.from(terms), { H_TD: 8, teThreshold: 0.99 });
  return {
    world: 'pointmaze-medium',
    dataset: { sha256: 'd'.repeat(64) },
    models: { embed: 'e'.repeat(64), policy: 'f'.repeat(64) },
    params: { H_TD: 8, teThreshold: 0.99 },
    graph,
    positions: new Float32Array(graph.nodeCount * 2).fill(1),
  };
}

const lassoWord = fc.record({
  prefix: fc.array(
    fc.subarray(['e0', 'e1', 'e2', 'e3']).map((s) => new Set(s)),
    { maxLength: 4 },
  ),
  cycle: fc.array(
    fc.subarray(['e0', 'e1', 'e2', 'e3']).map((s) => new Set(s)),
    { minLength: 1, maxLength: 4 },
  ),
});

/** rosbag2 files (an MCAP of Jazzy with zstd chunks, a Humble .db3) written once per run of the suite. */
async function bagSeeds(): Promise<{ mcap: Uint8Array; db3: Uint8Array }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-fuzz-bag-'));
  try {
    await writeMcap(path.join(dir, 'b.mcap'), { distro: 'jazzy', pose: 'odometry', action: 'twist' }, undefined, {
      zstd: true,
      chunkSize: 1024,
    });
    writeDb3(path.join(dir, 'b.db3'), { distro: 'humble', pose: 'odometry', action: 'twist' });
    return {
      mcap: new Uint8Array(readFileSync(path.join(dir, 'b.mcap'))),
      db3: new Uint8Array(readFileSync(path.join(dir, 'b.db3'))),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
export const BAG_SEEDS = await bagSeeds();

/** A rosbag2 file imported into a point maze, as `witness data import BAG` does. */
const importBagBytes =
  (ext: string) =>
  async (bytes: Uint8Array, scratch: string): Promise<unknown> => {
    const f = path.join(scratch, `b.${ext}`);
    writeFileSync(f, bytes);
    return importBag(f, {
      world: 'pointmaze-medium',
      poseTopic: '/odom',
      actionTopic: '/cmd_vel',
      out: path.join(scratch, 'b.wds'),
    });
  };

/** A target with its input type erased, for the list. */
const target = <T>(t: Target<T>): Target => t as unknown as Target;

/** The in-process targets. `auditSeedBytes` is made once per run of the suite (it needs a writer). */
export function targets(auditSeedBytes: Uint8Array): Target[] {
  const toolSeeds = [...assetsIn('tools', '.json'), ...assetsIn('ros2/tools', '.json')];
  const toolConditions = toolSeeds.flatMap((t) => {
    const d = JSON.parse(t) as { preconditions?: { expr?: string }[]; postconditions?: { expr?: string }[] };
    return [...(d.preconditions ?? []), ...(d.postconditions ?? [])].flatMap((c) =>
      typeof c.expr === 'string' ? [c.expr] : [],
    );
  });
  const state = {
    objects: { red_bin: { on: 'table', at: [1, 2] } },
    gripper: { holding: null, open: true },
    base: { x: 1, y: 2 },
  };
  const manifestSeed = asset('models/pointmaze-medium/manifest.json');
  const regionsSeeds = [
    asset('regions/pointmaze-medium.json'),
    asset('maps/lab-regions.json'),
    asset('ros2/nav2-regions.json'),
  ];
  const rosSeeds = assetsIn('ros2', '.json').filter((t) => !/"regions"\s*:\s*\[/.test(t));
  return [
    target({
      name: 'ltl-parse',
      reads: 'LTL formulas (parser)',
      input: () => mutatedText(ltlSeeds(), LTL_TOKENS),
      run: (text: string) => parseLtl(text),
    }),
    target({
      name: 'ltl-check',
      reads: 'LTL formulas on lasso words (evaluator)',
      input: () => fc.tuple(mutatedText(ltlSeeds(), LTL_TOKENS), lassoWord),
      run: ([text, word]: [string, { prefix: Set<string>[]; cycle: Set<string>[] }]) =>
        evaluateLasso(parseLtl(text, { allowNext: true }), word),
    }),
    target({
      name: 'ltl-translate',
      reads: 'LTL formulas (translator, 2 s budget)',
      weight: 0.3,
      input: () => mutatedText(ltlSeeds(), LTL_TOKENS),
      run: (text: string) => translateLtl(text, { timeLimit_ms: 2000, allowNext: true }),
    }),
    target({
      name: 'graph-json',
      reads: 'labelled graphs (JSON)',
      input: () => hostileJson(assetsIn('graphs', '.json')),
      run: (text: string) => labelledGraph(parseJson(text, 'g.json'), 'g.json'),
    }),
    target({
      name: 'regions',
      reads: 'regions files (JSON)',
      input: () => hostileJson(regionsSeeds),
      run: (text: string) => parseRegions(parseJson(text, 'r.json'), 'r.json'),
    }),
    target({
      name: 'map-yaml',
      reads: 'map_server YAML',
      input: () =>
        mutatedText(
          [asset('maps/lab.yaml')],
          [':', '- ', '[', ']', '{', '}', '&a', '*a', '!!binary', '<<: *a', '\n  ', '1e999', '.nan', '~'],
        ),
      run: (text: string) => parseMapYaml(text, 'm.yaml'),
    }),
    target({
      name: 'map-image',
      reads: 'map images (PGM/PNG/BMP) through readMap',
      weight: 0.5,
      input: () => mutatedBytes([assetBytes('maps/lab.pgm'), ...imageSeeds()]),
      run: async (bytes: Uint8Array, scratch: string) => {
        writeFileSync(
          path.join(scratch, 'm.yaml'),
          'image: m.img\nresolution: 0.05\norigin: [0, 0, 0]\nnegate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n',
        );
        writeFileSync(path.join(scratch, 'm.img'), bytes);
        return readMap(path.join(scratch, 'm.yaml'));
      },
    }),
    target({
      name: 'tool-file',
      reads: 'tool definitions (JSON Schema + CEL conditions)',
      input: () => hostileJson(toolSeeds),
      run: (text: string) =>
        registerTools([{ def: parseTool(parseJson(text, 't.json'), 't.json'), file: 't.json' }], TABLETOP_VOCABULARY),
    }),
    target({
      name: 'cel',
      reads: 'CEL conditions (evaluated on a world state)',
      input: () =>
        mutatedText(toolConditions, [
          '.',
          '[',
          ']',
          '(',
          ')',
          '==',
          '!=',
          '&&',
          '||',
          '!',
          '"',
          "'",
          'size(',
          'has(',
          '1/0',
          '9223372036854775807',
          'in',
          '?',
          ':',
        ]),
      run: (expr: string) => {
        // A condition reaches evaluation only through a registered tool; so the condition goes in a tool file first.
        const def = JSON.parse(toolSeeds[0]!) as Record<string, unknown>;
        const tools = registerTools(
          [{ def: parseTool({ ...def, postconditions: [{ name: 'fuzz', expr }] }, 't.json'), file: 't.json' }],
          TABLETOP_VOCABULARY,
        );
        return tools.size > 0 ? holds(expr, state, { args: {} }) : null;
      },
    }),
    target({
      name: 'wds',
      reads: 'datasets (.wds)',
      input: () => mutatedBytes([encodeDataset(sampleDataset()), encodeDataset(sampleDataset([5, 5], 4, 2))]),
      run: (bytes: Uint8Array) => decodeDataset(bytes, 'd.wds'),
    }),
    target({
      name: 'npz',
      reads: 'OGBench datasets (.npz)',
      input: () => mutatedBytes([encodeNpz(sampleDataset()), encodeNpz(sampleDataset([5, 5], 4, 2))]),
      run: (bytes: Uint8Array) => decodeNpz(bytes, 'd.npz', { worldId: 'pointmaze-medium' }),
    }),
    target({
      name: 'wgraph',
      reads: 'latent graphs (.wgraph)',
      input: () => mutatedBytes([encodeGraph(graphArtifact())]),
      run: async (bytes: Uint8Array, scratch: string) => {
        const f = path.join(scratch, 'g.wgraph');
        writeFileSync(f, bytes);
        return readGraph(f);
      },
    }),
    target({
      name: 'onnx-manifest',
      reads: 'model bundle manifests (JSON)',
      input: () => hostileJson([manifestSeed]),
      run: (text: string) => validateManifest(parseJson(text, 'manifest.json'), 'manifest.json'),
    }),
    target({
      name: 'ros2-config',
      reads: 'ROS 2 backend configurations (JSON)',
      input: () => hostileJson(rosSeeds),
      run: (text: string) =>
        parseRos2Config(text, path.join(ROOT, 'assets/ros2/fuzz.json'), (p) => readFileSync(p, 'utf8')),
    }),
    target({
      name: 'maze-layout',
      reads: 'maze layout files (JSON)',
      input: () =>
        hostileJson([
          JSON.stringify({
            id: 'fuzz-maze',
            grid: [
              [1, 1, 1, 1],
              [1, 0, 0, 1],
              [1, 0, 1, 1],
              [1, 1, 1, 1],
            ],
            unit_m: 4,
            offset_m: 4,
          }),
        ]),
      run: (text: string, scratch: string) => {
        const f = path.join(scratch, 'layout.json');
        writeFileSync(f, text);
        return readLayoutFile(f);
      },
    }),
    target({
      name: 'rosbag-mcap',
      reads: 'rosbag2 MCAP files (zstd chunks, CDR) through data import',
      weight: 0.5,
      input: () => mutatedBytes([BAG_SEEDS.mcap]),
      run: importBagBytes('mcap'),
    }),
    target({
      name: 'rosbag-db3',
      reads: 'rosbag2 .db3 files (SQLite, CDR) through data import',
      weight: 0.5,
      input: () => mutatedBytes([BAG_SEEDS.db3]),
      run: importBagBytes('db3'),
    }),
    target({
      name: 'audit-db',
      reads: 'audit databases (SQLite: open, list, page, verify)',
      weight: 0.5,
      input: () => mutatedBytes([auditSeedBytes]),
      run: async (bytes: Uint8Array, scratch: string) => {
        // Through the application layer the CLI, the web API and the console use.
        const f = path.join(scratch, 'a.sqlite');
        writeFileSync(f, bytes);
        auditRuns(f);
        await auditQuery(f, {}, { page: () => undefined });
        return auditVerify(f);
      },
    }),
    ...wsTargets(),
    ...bagTargets(),
    ...llmTargets(),
    ...auditDbTargets(),
  ];
}

/** Small valid PNG and BMP maps (the shipped map is PGM). */
function imageSeeds(): Uint8Array[] {
  return [png4x4(), bmp4x4()];
}

/** A 4×4 grey PNG. */
function png4x4(): Uint8Array {
  const p = new PNG({ width: 4, height: 4, colorType: 0, inputColorType: 6, inputHasAlpha: true });
  for (let i = 0; i < 16; i++) p.data.set([i * 16, i * 16, i * 16, 255], i * 4);
  return new Uint8Array(PNG.sync.write(p, { colorType: 0, inputColorType: 6, inputHasAlpha: true }));
}

function bmp4x4(): Uint8Array {
  const w = 4,
    h = 4,
    row = 4,
    palette = 256 * 4,
    data = row * h;
  const b = Buffer.alloc(14 + 40 + palette + data);
  b.write('BM', 0);
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(14 + 40 + palette, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(w, 18);
  b.writeInt32LE(h, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(8, 28);
  b.writeUInt32LE(256, 46);
  for (let i = 0; i < 256; i++) b.writeUInt32LE(i * 0x010101, 54 + i * 4);
  for (let i = 0; i < data; i++) b[54 + palette + i] = (i * 37) & 0xff;
  return new Uint8Array(b);
}

/** The audit seed, made in `dir`. */
export { auditSeed };

/** A model bundle folder with its manifest's hashes fixed up for (possibly mutated) ONNX bytes. */
export function writeBundle(dir: string, embed: Uint8Array, policy: Uint8Array): void {
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(asset('models/pointmaze-medium/manifest.json')) as {
    files: Record<string, { sha256: string }>;
  };
  const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
  manifest.files['embed.onnx'] = { sha256: sha(embed) };
  manifest.files['policy.onnx'] = { sha256: sha(policy) };
  writeFileSync(path.join(dir, 'embed.onnx'), embed);
  writeFileSync(path.join(dir, 'policy.onnx'), policy);
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
}

export const shippedOnnx = (): { embed: Uint8Array; policy: Uint8Array } => ({
  embed: assetBytes('models/pointmaze-medium/embed.onnx'),
  policy: assetBytes('models/pointmaze-medium/policy.onnx'),
});

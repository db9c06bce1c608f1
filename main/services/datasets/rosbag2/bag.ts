/**
 * A rosbag2 recording, whatever its storage: a bag directory (metadata.yaml naming its .mcap or
 * .db3 files, in order), or one .mcap or .db3 file. Both storages give the same view: the topics
 * (name, type, serialization), the distro when the bag says it, the message definitions the bag
 * carries, and the messages of some topics in the bag's time order, streamed (a 1 GB bag is never
 * held in memory). Every problem with the bag is a BagError (exit 2) naming the bag.
 */
import { type Stats, existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { MessageDefinition } from '@foxglove/message-definition';
import { loadDecompressHandlers } from '@mcap/support';
import { parse as parseYaml } from 'yaml';
import { INPUT, readInputText } from '../../../platform/input-files.js';
import { BagError, errText, stampText } from './errors.js';
import { BAG_LIMITS, InflateBudget, bytesText } from './limits.js';
import { openMcapBag } from './mcap.js';
import { openDb3Bag } from './db3.js';

type Storage = 'mcap' | 'sqlite3';

export interface BagTopic {
  readonly name: string;
  /** As the bag writes it: `nav_msgs/msg/Odometry`. */
  readonly type: string;
  /** `cdr` for every ROS 2 middleware the recorder knows. */
  readonly serialization: string;
}

/** One recorded message: its topic, the time the recorder received it (ns since the epoch), its bytes. */
export interface BagMessage {
  readonly topic: string;
  readonly logTime: bigint;
  readonly data: Uint8Array;
}

/** One storage file of a bag. */
export interface BagFile {
  readonly file: string;
  readonly storage: Storage;
  /** From the file itself (MCAP's rosbag2 metadata, the .db3 `schema` table), when it says. */
  readonly distro: string | null;
  readonly topics: readonly BagTopic[];
  /**
   * The first and last receive times (ns), when the file says them cheaply (MCAP statistics, the .db3 index); for
   * progress.
   */
  readonly timeRange: readonly [bigint, bigint] | null;
  /** The definition of a type the file carries (MCAP schemas; Jazzy's message_definitions), or null. */
  definition(type: string): MessageDefinition[] | null;
  /** The messages of these topics in receive-time order. */
  messages(topics: readonly string[]): AsyncGenerator<BagMessage>;
  /** Messages per topic (MCAP: its statistics record; .db3: a count of its rows), null where the file does not say. */
  counts(): Promise<ReadonlyMap<string, number> | null>;
  close(): Promise<void>;
}

export interface RosBag {
  /** What the person named (the directory or the file), for messages. */
  readonly path: string;
  readonly storage: Storage;
  readonly distro: string | null;
  /** metadata.yaml's version (4: Foxy, 5: Galactic and Humble, 8 or 9: Jazzy), null for a bare file. */
  readonly metadataVersion: number | null;
  readonly topics: readonly BagTopic[];
  readonly timeRange: readonly [bigint, bigint] | null;
  definition(type: string): MessageDefinition[] | null;
  messages(topics: readonly string[]): AsyncGenerator<BagMessage>;
  /** Messages per topic over all its files, null where a file does not say. */
  counts(): Promise<ReadonlyMap<string, number> | null>;
  close(): Promise<void>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const storageOf = (file: string): Storage | null => {
  const f = file.toLowerCase();
  return f.endsWith('.mcap') ? 'mcap' : f.endsWith('.db3') ? 'sqlite3' : null;
};

/** A storage file compressed whole (rosbag2's FILE compression mode writes `x_0.db3.zstd`). */
const wholeCompressed = (file: string): boolean => /\.(db3|mcap)\.zstd$/i.test(file);

/**
 * Whether a path names a rosbag2 bag: a .mcap or .db3 file (or one compressed whole), a metadata.yaml, or a folder
 * holding one.
 */
export function isBagPath(p: string): boolean {
  return (
    storageOf(p) !== null ||
    wholeCompressed(p) ||
    path.basename(p) === 'metadata.yaml' ||
    existsSync(path.join(p, 'metadata.yaml'))
  );
}

const FILE_COMPRESSED =
  "rosbag2's FILE compression mode compresses each storage file whole, which this reader does not inflate: " +
  'write an uncompressed copy with `ros2 bag convert` (an output bag without compression), or run `zstd -d` on each file and give the .db3 or .mcap file itself';

/** The first 4 bytes of a zstd frame (0xFD2FB528, little-endian); CDR starts with its encapsulation header, 0x00. */
const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd] as const;
const isZstdFrame = (d: Uint8Array): boolean =>
  d.length >= 4 && d[0] === ZSTD_MAGIC[0] && d[1] === ZSTD_MAGIC[1] && d[2] === ZSTD_MAGIC[2] && d[3] === ZSTD_MAGIC[3];

/**
 * The decompressed size a zstd frame's header records (rosbag2's MESSAGE mode compresses each
 * message in one call, which records it), or null when the frame does not say.
 */
function zstdContentSize(d: Uint8Array): number | null {
  if (!isZstdFrame(d) || d.length < 5) return null;
  const fhd = d[4]!;
  const fcsFlag = fhd >> 6,
    single = (fhd >> 5) & 1,
    dictFlag = fhd & 3;
  const fcsBytes = fcsFlag === 0 ? (single === 1 ? 1 : 0) : [0, 2, 4, 8][fcsFlag]!;
  if (fcsBytes === 0) return null;
  const at = 5 + (single === 1 ? 0 : 1) + [0, 1, 2, 4][dictFlag]!;
  if (d.length < at + fcsBytes) return null;
  let v = 0;
  for (let i = fcsBytes - 1; i >= 0; i--) v = v * 256 + d[at + i]!;
  return fcsBytes === 2 ? v + 256 : v;
}

/**
 * The messages of a bag whose messages may each be a zstd frame (rosbag2's MESSAGE compression
 * mode, or one file of such a bag given alone), inflated; others pass through. Each frame's size is
 * checked against the limit for one message and taken from the bag's budget before it is inflated.
 */
async function* inflated(
  bag: string,
  budget: InflateBudget,
  source: AsyncGenerator<BagMessage>,
): AsyncGenerator<BagMessage> {
  let zstd: ((data: Uint8Array, size: bigint) => Uint8Array) | null = null;
  for await (const m of source) {
    if (!isZstdFrame(m.data)) {
      yield m;
      continue;
    }
    const size = zstdContentSize(m.data);
    if (size === null)
      throw new BagError(
        bag,
        `topic ${m.topic}: the message received at ${stampText(m.logTime)} is a zstd frame that does not record its size`,
        'corrupt',
      );
    const what = `topic ${m.topic}: the message received at ${stampText(m.logTime)}`;
    if (size > BAG_LIMITS.inflatedItem) {
      throw new BagError(
        bag,
        `${what} is a zstd frame that declares ${bytesText(size)} inflated, over ${bytesText(BAG_LIMITS.inflatedItem)} (the limit for one message)`,
        'too-large',
      );
    }
    // A zstd block of 128 KiB compresses to no less than 4 bytes: a larger claim is a damaged header, not a message.
    if (size > m.data.length * 32_768 + 131_072) {
      throw new BagError(
        bag,
        `${what} is a zstd frame of ${m.data.length} bytes that claims ${size} bytes inflated (damaged)`,
        'corrupt',
      );
    }
    budget.take(size, `${what} inflates to ${bytesText(size)}`);
    zstd ??= (await loadDecompressHandlers()).zstd!;
    let data: Uint8Array;
    try {
      data = zstd(m.data, BigInt(size));
    } catch (e) {
      throw new BagError(
        bag,
        `topic ${m.topic}: the message received at ${stampText(m.logTime)} does not inflate (zstd): ${errText(e)}`,
        'corrupt',
        { cause: e },
      );
    }
    yield { topic: m.topic, logTime: m.logTime, data };
  }
}

/**
 * A bag's storage file must be a regular file, checked by its status before it is opened: opening a
 * FIFO would wait for a writer, and a device has no end. It is streamed, so no size limit applies
 * (what it declares is bounded instead: limits.ts). Returns its size.
 */
function admitFile(bag: string, file: string): Stats {
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new BagError(
      bag,
      `cannot read ${file}: ${code ?? String(e)}`,
      code === 'ENOENT' ? 'not-found' : 'unreadable',
      { cause: e },
    );
  }
  if (st.isDirectory()) throw new BagError(bag, `${file} is a folder, not a file`, 'not-a-file');
  if (!st.isFile())
    throw new BagError(
      bag,
      `${file} is not a regular file (a pipe or a device): a bag is read by seeking, give a regular file`,
      'not-a-file',
    );
  return st;
}

function openFile(bag: string, file: string, storage: Storage, budget: InflateBudget): Promise<BagFile> {
  return storage === 'mcap' ? openMcapBag(bag, file, budget) : openDb3Bag(bag, file);
}

interface Metadata {
  readonly version: number;
  readonly storage: Storage;
  readonly files: readonly string[];
  readonly distro: string | null;
  /** `zstd` when each message is compressed (compression_mode MESSAGE). */
  readonly messageCompression: 'zstd' | null;
}

/**
 * The parts of metadata.yaml the importer uses (versions 1 to 9: 1 to 3 are from before Foxy, Foxy
 * writes 4, Galactic and Humble 5, Jazzy 8 or 9).
 */
function parseMetadata(bag: string, text: string): Metadata {
  const fail = (detail: string): never => {
    throw new BagError(bag, `metadata.yaml: ${detail}`);
  };
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    return fail(`not valid YAML: ${e instanceof Error ? e.message : String(e)}`);
  }
  const info = isObject(doc) ? doc.rosbag2_bagfile_information : undefined;
  if (!isObject(info)) return fail('no rosbag2_bagfile_information section: not a rosbag2 metadata file');
  const version = info.version;
  if (typeof version !== 'number' || !Number.isInteger(version))
    return fail('rosbag2_bagfile_information.version is not an integer');
  if (version < 1 || version > 9)
    fail(`version ${version}: this reader knows versions 1 to 9 (Foxy writes 4, Humble 5, Jazzy 8 or 9)`);
  const id = info.storage_identifier;
  if (id !== 'mcap' && id !== 'sqlite3')
    return fail(`storage_identifier ${JSON.stringify(id)}: this reader knows "mcap" and "sqlite3"`);
  const format = typeof info.compression_format === 'string' ? info.compression_format : '';
  const mode = typeof info.compression_mode === 'string' ? info.compression_mode.toUpperCase() : '';
  let messageCompression: 'zstd' | null = null;
  if (format !== '' && mode !== 'NONE') {
    if (mode === 'MESSAGE' && format === 'zstd') messageCompression = 'zstd';
    else if (mode === 'MESSAGE')
      fail(
        `compression_format ${JSON.stringify(format)} (compression_mode MESSAGE): this reader inflates zstd messages only`,
      );
    else
      fail(
        `compression_format ${JSON.stringify(format)}, compression_mode ${JSON.stringify(info.compression_mode ?? '')}: ${FILE_COMPRESSED}`,
      );
  }
  const list = info.relative_file_paths;
  if (!Array.isArray(list) || list.length === 0 || !list.every((f) => typeof f === 'string' && f !== '')) {
    return fail("relative_file_paths must list the bag's files");
  }
  // A file named twice is read once.
  const files = [...new Set(list as string[])];
  if (files.length > BAG_LIMITS.files) {
    fail(
      `relative_file_paths names ${files.length} files, over ${BAG_LIMITS.files} (the limit for one bag's files): merge them into fewer with ros2 bag convert`,
    );
  }
  for (const f of files)
    if (path.isAbsolute(f) || f.split(/[\\/]/).includes('..'))
      fail(`relative_file_paths: ${f} is outside the bag directory`);
  const distro = typeof info.ros_distro === 'string' && info.ros_distro !== '' ? info.ros_distro : null;
  return { version, storage: id, files, distro, messageCompression };
}

/**
 * Where a file metadata.yaml names lies. Since version 4 its path is relative to the bag directory;
 * before, rosbag2 prefixed it with the directory's own name (`bag/bag_0.db3`), relative to its parent,
 * so there it is looked for first (and, as some hand-written bags have it, in the directory itself).
 */
function resolveFile(dir: string, version: number, f: string): string {
  const inDir = path.join(dir, f);
  if (version >= 4) return inDir;
  const inParent = path.join(path.dirname(path.resolve(dir)), f);
  return existsSync(inParent) || !existsSync(inDir) ? inParent : inDir;
}

/**
 * A file metadata.yaml names is not there: say so, with the storage files the directory does hold (a renamed file?).
 */
function missingFile(bag: string, dir: string, f: string, file: string): BagError {
  let held: string[] = [];
  try {
    held = readdirSync(dir)
      .filter((n) => storageOf(n) !== null || wholeCompressed(n))
      .sort();
  } catch {
    held = [];
  }
  const holds =
    held.length === 0
      ? 'the directory holds no .db3 or .mcap file'
      : `the directory holds ${held.join(', ')}: renamed? give the file itself, or correct relative_file_paths`;
  return new BagError(bag, `metadata.yaml names ${f}, which is not there (${file}); ${holds}`, 'not-found');
}

/** Opens a bag directory, its metadata.yaml, or one .mcap / .db3 file. */
export async function openBag(p: string): Promise<RosBag> {
  let dir: string | null = null;
  try {
    if (statSync(p).isDirectory()) dir = p;
  } catch {
    throw new BagError(p, 'no such file or directory', 'not-found');
  }
  if (dir === null && path.basename(p) === 'metadata.yaml') dir = path.dirname(p);
  if (dir === null) {
    const storage = storageOf(p);
    if (storage === null && wholeCompressed(p))
      throw new BagError(p, `a storage file compressed whole (zstd): ${FILE_COMPRESSED}`);
    if (storage === null)
      throw new BagError(p, 'not a rosbag2 bag: give a bag directory (with metadata.yaml), a .mcap or a .db3 file');
    const budget = new InflateBudget(p, admitFile(p, p).size);
    return single(p, await openFile(p, p, storage, budget), null, budget);
  }
  const yamlFile = path.join(dir, 'metadata.yaml');
  const dirReal = realpathSync(dir);
  let text: string;
  try {
    if (existsSync(yamlFile)) contained(p, dirReal, yamlFile);
    text = await readInputText(yamlFile, INPUT.config);
  } catch (e) {
    if (e instanceof BagError) throw e;
    throw new BagError(
      p,
      `a bag directory needs its metadata.yaml: ${e instanceof Error ? e.message : String(e)}`,
      undefined,
      { cause: e },
    );
  }
  const meta = parseMetadata(p, text);
  const listed = bagFiles(p, dir, dirReal, meta);
  const budget = new InflateBudget(
    p,
    listed.reduce((n, f) => n + f.bytes, 0),
  );
  const files: BagFile[] = [];
  try {
    for (const f of listed) files.push(await openFile(p, f.file, meta.storage, budget));
  } catch (e) {
    await Promise.all(files.map((f) => f.close()));
    throw e;
  }
  return merged(p, meta, files, budget);
}

/** A file of a bag folder must lie in it once links are followed: one that leads out of the folder is refused. */
function contained(bag: string, dirReal: string, file: string): void {
  const real = realpathSync(file);
  const rel = path.relative(dirReal, real);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new BagError(
      bag,
      `${file} leads to ${real}, outside the bag folder ${dirReal}: a bag's files must lie in its folder (a link out of it is refused)`,
      'forbidden',
    );
  }
}

/**
 * The storage files metadata.yaml names: there, inside the folder, regular files, each once (two names of one file —
 * spelt otherwise, a link, a hard link — read it once).
 */
function bagFiles(bag: string, dir: string, dirReal: string, meta: Metadata): { file: string; bytes: number }[] {
  const seen = new Set<string>();
  const out: { file: string; bytes: number }[] = [];
  for (const f of meta.files) {
    const file = resolveFile(dir, meta.version, f);
    if (!existsSync(file)) throw missingFile(bag, dir, f, file);
    contained(bag, dirReal, file);
    const st = admitFile(bag, file);
    const id = `${st.dev}:${st.ino}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ file, bytes: st.size });
  }
  return out;
}

function single(p: string, f: BagFile, version: number | null, budget: InflateBudget): RosBag {
  return {
    path: p,
    storage: f.storage,
    distro: f.distro,
    metadataVersion: version,
    topics: f.topics,
    timeRange: f.timeRange,
    // A file of a MESSAGE-compressed bag given alone: its messages are zstd frames.
    definition: (t) => f.definition(t),
    messages: (t) => inflated(p, budget, f.messages(t)),
    counts: () => f.counts(),
    close: () => f.close(),
  };
}

/** The files of a split bag, one after the other (rosbag2 splits by time: file i ends before file i + 1 starts). */
function merged(p: string, meta: Metadata, files: readonly BagFile[], budget: InflateBudget): RosBag {
  const topics = new Map<string, BagTopic>();
  for (const f of files) {
    for (const t of f.topics) {
      const seen = topics.get(t.name);
      if (seen !== undefined && seen.type !== t.type)
        throw new BagError(
          p,
          `topic ${t.name} has type ${seen.type} in one file and ${t.type} in ${path.basename(f.file)}`,
        );
      topics.set(t.name, t);
    }
  }
  return {
    path: p,
    storage: meta.storage,
    distro: meta.distro ?? files.find((f) => f.distro !== null)?.distro ?? null,
    metadataVersion: meta.version,
    topics: [...topics.values()],
    timeRange: files.every((f) => f.timeRange !== null)
      ? [
          files.map((f) => f.timeRange![0]).reduce((a, b) => (a < b ? a : b)),
          files.map((f) => f.timeRange![1]).reduce((a, b) => (a > b ? a : b)),
        ]
      : null,
    definition: (t) => {
      for (const f of files) {
        const d = f.definition(t);
        if (d !== null) return d;
      }
      return null;
    },
    async *messages(t) {
      for (const f of files) yield* inflated(p, budget, f.messages(t));
    },
    async counts() {
      const sum = new Map<string, number>();
      for (const f of files) {
        const c = await f.counts();
        if (c === null) return null;
        for (const [k, v] of c) sum.set(k, (sum.get(k) ?? 0) + v);
      }
      return sum;
    },
    close: async () => {
      await Promise.all(files.map((f) => f.close()));
    },
  };
}

/**
 * A rosbag2 recording, whatever its storage: a bag directory (metadata.yaml naming its .mcap or
 * .db3 files, in order), or one .mcap or .db3 file. Both storages give the same view: the topics
 * (name, type, serialization), the distro when the bag says it, the message definitions the bag
 * carries, and the messages of some topics in the bag's time order, streamed (a 1 GB bag is never
 * held in memory). Every problem with the bag is a BagError (exit 2) naming the bag.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { MessageDefinition } from '@foxglove/message-definition';
import { parse as parseYaml } from 'yaml';
import { INPUT, readInputText } from '../../../platform/input-files.js';
import { BagError } from './errors.js';
import { openMcapBag } from './mcap.js';
import { openDb3Bag } from './db3.js';

export type Storage = 'mcap' | 'sqlite3';

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
  /** The first and last receive times (ns), when the file says them cheaply (MCAP statistics, the .db3 index); for progress. */
  readonly timeRange: readonly [bigint, bigint] | null;
  /** The definition of a type the file carries (MCAP schemas; Jazzy's message_definitions), or null. */
  definition(type: string): MessageDefinition[] | null;
  /** The messages of these topics in receive-time order. */
  messages(topics: readonly string[]): AsyncGenerator<BagMessage>;
  close(): Promise<void>;
}

export interface RosBag {
  /** What the person named (the directory or the file), for messages. */
  readonly path: string;
  readonly storage: Storage;
  readonly distro: string | null;
  /** metadata.yaml's version (5: Humble, 8 or 9: Jazzy), null for a bare file. */
  readonly metadataVersion: number | null;
  readonly topics: readonly BagTopic[];
  readonly timeRange: readonly [bigint, bigint] | null;
  definition(type: string): MessageDefinition[] | null;
  messages(topics: readonly string[]): AsyncGenerator<BagMessage>;
  close(): Promise<void>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const storageOf = (file: string): Storage | null => {
  const f = file.toLowerCase();
  return f.endsWith('.mcap') ? 'mcap' : f.endsWith('.db3') ? 'sqlite3' : null;
};

/** Whether a path names a rosbag2 bag: a .mcap or .db3 file, a metadata.yaml, or a folder holding one. */
export function isBagPath(p: string): boolean {
  return storageOf(p) !== null || path.basename(p) === 'metadata.yaml' || existsSync(path.join(p, 'metadata.yaml'));
}

/**
 * A bag's storage file must be a regular file, checked by its status before it is opened: opening a
 * FIFO would wait for a writer, and a device has no end. It is streamed, so no size limit applies.
 */
function admitFile(bag: string, file: string): void {
  let st;
  try {
    st = statSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new BagError(bag, `cannot read ${file}: ${code ?? String(e)}`, code === 'ENOENT' ? 'not-found' : 'unreadable', { cause: e });
  }
  if (st.isDirectory()) throw new BagError(bag, `${file} is a folder, not a file`, 'not-a-file');
  if (!st.isFile()) throw new BagError(bag, `${file} is not a regular file (a pipe or a device): a bag is read by seeking, give a regular file`, 'not-a-file');
}

function openFile(bag: string, file: string, storage: Storage): Promise<BagFile> {
  admitFile(bag, file);
  return storage === 'mcap' ? openMcapBag(bag, file) : openDb3Bag(bag, file);
}

interface Metadata {
  readonly version: number;
  readonly storage: Storage;
  readonly files: readonly string[];
  readonly distro: string | null;
}

/** The parts of metadata.yaml the importer uses (versions 4 to 9: Humble writes 5, Jazzy 8 or 9). */
export function parseMetadata(bag: string, text: string): Metadata {
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
  if (typeof version !== 'number' || !Number.isInteger(version)) return fail('rosbag2_bagfile_information.version is not an integer');
  if (version < 4 || version > 9) fail(`version ${version}: this reader knows versions 4 to 9 (Humble writes 5, Jazzy 8 or 9)`);
  const id = info.storage_identifier;
  if (id !== 'mcap' && id !== 'sqlite3') return fail(`storage_identifier ${JSON.stringify(id)}: this reader knows "mcap" and "sqlite3"`);
  if (typeof info.compression_format === 'string' && info.compression_format !== '') {
    fail(`compression_format ${JSON.stringify(info.compression_format)}: the bag's files are compressed whole; decompress them (ros2 bag decompress) first`);
  }
  const files = info.relative_file_paths;
  if (!Array.isArray(files) || files.length === 0 || !files.every((f) => typeof f === 'string' && f !== '')) {
    return fail('relative_file_paths must list the bag\'s files');
  }
  for (const f of files as string[]) if (path.isAbsolute(f) || f.split(/[\\/]/).includes('..')) fail(`relative_file_paths: ${f} is outside the bag directory`);
  const distro = typeof info.ros_distro === 'string' && info.ros_distro !== '' ? info.ros_distro : null;
  return { version, storage: id, files: files as string[], distro };
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
    if (storage === null) throw new BagError(p, 'not a rosbag2 bag: give a bag directory (with metadata.yaml), a .mcap or a .db3 file');
    return single(p, await openFile(p, p, storage), null);
  }
  const yamlFile = path.join(dir, 'metadata.yaml');
  let text: string;
  try {
    text = await readInputText(yamlFile, INPUT.config);
  } catch (e) {
    throw new BagError(p, `a bag directory needs its metadata.yaml: ${e instanceof Error ? e.message : String(e)}`, undefined, { cause: e });
  }
  const meta = parseMetadata(p, text);
  const files: BagFile[] = [];
  try {
    for (const f of meta.files) files.push(await openFile(p, path.join(dir, f), meta.storage));
  } catch (e) {
    await Promise.all(files.map((f) => f.close()));
    throw e;
  }
  return merged(p, meta, files);
}

function single(p: string, f: BagFile, version: number | null): RosBag {
  return {
    path: p, storage: f.storage, distro: f.distro, metadataVersion: version, topics: f.topics, timeRange: f.timeRange,
    definition: (t) => f.definition(t), messages: (t) => f.messages(t), close: () => f.close(),
  };
}

/** The files of a split bag, one after the other (rosbag2 splits by time: file i ends before file i + 1 starts). */
function merged(p: string, meta: Metadata, files: readonly BagFile[]): RosBag {
  const topics = new Map<string, BagTopic>();
  for (const f of files) {
    for (const t of f.topics) {
      const seen = topics.get(t.name);
      if (seen !== undefined && seen.type !== t.type) throw new BagError(p, `topic ${t.name} has type ${seen.type} in one file and ${t.type} in ${path.basename(f.file)}`);
      topics.set(t.name, t);
    }
  }
  return {
    path: p, storage: meta.storage, distro: meta.distro ?? files.find((f) => f.distro !== null)?.distro ?? null, metadataVersion: meta.version,
    topics: [...topics.values()],
    timeRange: files.every((f) => f.timeRange !== null)
      ? [files.map((f) => f.timeRange![0]).reduce((a, b) => (a < b ? a : b)), files.map((f) => f.timeRange![1]).reduce((a, b) => (a > b ? a : b))]
      : null,
    definition: (t) => {
      for (const f of files) {
        const d = f.definition(t);
        if (d !== null) return d;
      }
      return null;
    },
    async *messages(t) {
      for (const f of files) yield* f.messages(t);
    },
    close: async () => {
      await Promise.all(files.map((f) => f.close()));
    },
  };
}

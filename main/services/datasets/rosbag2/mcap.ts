/**
 * A rosbag2 MCAP file (the default storage since Iron; Humble's rosbag2_storage_mcap writes the same):
 * read through @mcap/core's indexed reader over a file handle, so only the chunks holding the wanted
 * topics are read, one at a time; zstd and lz4 chunks are inflated by @mcap/support. A file without
 * its summary (cut short: the recorder died) is refused as truncated. The sizes the file declares
 * are checked before the reader trusts them (mcap-bounds.ts).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { McapIndexedReader } from '@mcap/core';
import { parse as parseMsg } from '@foxglove/rosmsg';
import type { MessageDefinition } from '@foxglove/message-definition';
import { parse as parseYaml } from 'yaml';
import type { BagFile, BagMessage, BagTopic } from './bag.js';
import { BagError, errText, fileOf, stampText } from './errors.js';
import type { InflateBudget } from './limits.js';
import { GuardedReadable, boundedDecompressHandlers, checkChunkIndexes } from './mcap-bounds.js';

/**
 * The definitions of a `ros2msg` schema; null for other encodings (ros2idl, none): the caller falls back to the common
 * messages.
 */
export function ros2msgDefinitions(encoding: string, data: Uint8Array): MessageDefinition[] | null {
  if (encoding !== 'ros2msg' || data.length === 0) return null;
  // rosbag2 names dependencies `MSG: geometry_msgs/msg/Vector3`; fields name them `geometry_msgs/Vector3`.
  const text = new TextDecoder().decode(data).replace(/^MSG: ([^/\s]+)\/msg\/(\S+)\s*$/gm, 'MSG: $1/$2');
  return parseMsg(text, { ros2: true });
}

/**
 * The distro an MCAP file's `rosbag2` metadata record names: its `ROS_DISTRO` key (as Iron's plugin
 * wrote it), else `ros_distro` in its `serialized_metadata`, which rosbag2_storage_mcap writes as the
 * bag's metadata itself (`version: 9`, … `ros_distro: jazzy`, not under rosbag2_bagfile_information
 * as metadata.yaml has it; both forms are read). A file holds two such records, an empty one written
 * when the bag opens and the full one when it closes; the last wins.
 */
export function distroOf(meta: ReadonlyMap<string, string>): string | null {
  const direct = meta.get('ROS_DISTRO');
  if (direct !== undefined && direct !== '') return direct;
  const serialized = meta.get('serialized_metadata');
  if (serialized === undefined) return null;
  try {
    const doc = parseYaml(serialized) as {
      ros_distro?: unknown;
      rosbag2_bagfile_information?: { ros_distro?: unknown };
    } | null;
    const d = doc?.ros_distro ?? doc?.rosbag2_bagfile_information?.ros_distro;
    return typeof d === 'string' && d !== '' ? d : null;
  } catch {
    return null;
  }
}

export async function openMcapBag(bag: string, file: string, budget: InflateBudget): Promise<BagFile> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    throw new BagError(
      bag,
      `cannot open ${file}: ${errText(e)}`,
      (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'not-found' : 'unreadable',
      { cause: e },
    );
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new BagError(bag, `${file} is not a regular file`, 'not-a-file');
    let reader: McapIndexedReader;
    const readable = new GuardedReadable(fh, st.size, bag, file);
    try {
      reader = await McapIndexedReader.Initialize({ readable, decompressHandlers: await boundedDecompressHandlers() });
    } catch (e) {
      if (e instanceof BagError) throw e;
      throw new BagError(
        bag,
        `${file} is not a complete MCAP file (truncated, or not MCAP): ${errText(e)}`,
        'corrupt',
        { cause: e },
      );
    }
    checkChunkIndexes(bag, file, reader.chunkIndexes, reader.dataEndOffset, budget);
    readable.watch(reader.chunkIndexes);
    return await mcapFile(bag, file, fh, reader);
  } catch (e) {
    await fh.close();
    throw e;
  }
}

async function mcapFile(bag: string, file: string, fh: FileHandle, reader: McapIndexedReader): Promise<BagFile> {
  const topics: BagTopic[] = [];
  for (const ch of reader.channelsById.values()) {
    const schema = reader.schemasById.get(ch.schemaId);
    topics.push({ name: ch.topic, type: schema?.name ?? '', serialization: ch.messageEncoding });
  }
  const meta = new Map<string, string>();
  try {
    for await (const m of reader.readMetadata({ name: 'rosbag2' })) for (const [k, v] of m.metadata) meta.set(k, v);
  } catch (e) {
    throw new BagError(bag, `${fileOf(bag, file)}its rosbag2 metadata record does not read: ${errText(e)}`, 'corrupt', {
      cause: e,
    });
  }
  const defs = new Map<string, MessageDefinition[] | null>();
  return {
    file,
    storage: 'mcap',
    distro: distroOf(meta),
    topics,
    timeRange:
      reader.statistics !== undefined && reader.statistics.messageCount > 0n
        ? [reader.statistics.messageStartTime, reader.statistics.messageEndTime]
        : null,
    definition(type) {
      if (!defs.has(type)) {
        const s = [...reader.schemasById.values()].find((x) => x.name === type);
        let d: MessageDefinition[] | null = null;
        try {
          d = s === undefined ? null : ros2msgDefinitions(s.encoding, s.data);
        } catch (e) {
          throw new BagError(
            bag,
            `${fileOf(bag, file)}the schema of ${type} does not parse: ${errText(e)}`,
            'invalid-input',
            {
              cause: e,
            },
          );
        }
        defs.set(type, d);
      }
      return defs.get(type)!;
    },
    async *messages(wanted): AsyncGenerator<BagMessage> {
      const names = new Map([...reader.channelsById].map(([id, c]) => [id, c.topic]));
      let last = 0n;
      try {
        for await (const m of reader.readMessages({ topics: wanted, validateCrcs: true })) {
          last = m.logTime;
          yield { topic: names.get(m.channelId)!, logTime: m.logTime, data: m.data };
        }
      } catch (e) {
        if (e instanceof BagError) throw e;
        throw new BagError(
          bag,
          `${fileOf(bag, file)}reading messages failed after ${last === 0n ? 'the start' : `receive time ${stampText(last)}`}: ${errText(e)}`,
          'corrupt',
          { cause: e },
        );
      }
    },
    counts: () => {
      const st = reader.statistics;
      if (st === undefined) return Promise.resolve(null);
      const out = new Map<string, number>(topics.map((t) => [t.name, 0]));
      for (const [id, n] of st.channelMessageCounts) {
        const topic = reader.channelsById.get(id)?.topic;
        if (topic !== undefined) out.set(topic, (out.get(topic) ?? 0) + Number(n));
      }
      return Promise.resolve(out);
    },
    close: () => fh.close(),
  };
}

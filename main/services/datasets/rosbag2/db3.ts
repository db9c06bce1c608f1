/**
 * A rosbag2 sqlite3 file (.db3: Humble's default storage). Tables: `topics` (id, name, type,
 * serialization_format, offered_qos_profiles; Jazzy adds type_description_hash), `messages` (id,
 * topic_id, timestamp in ns, data as CDR), `schema` (schema_version, ros_distro: 3 and "humble",
 * 4 and "jazzy"), and since Iron `message_definitions` (topic_type, encoding,
 * encoded_message_definition). Opened read-only; messages are iterated row by row in timestamp
 * order (the recorder's timestamp_idx), never loaded whole. A file cut short is refused when SQLite
 * meets the missing pages.
 */
import Database from 'better-sqlite3';
import type { MessageDefinition } from '@foxglove/message-definition';
import type { BagFile, BagMessage, BagTopic } from './bag.js';
import { BagError, errText, stampText } from './errors.js';
import { ros2msgDefinitions } from './mcap.js';

interface TopicRow {
  id: number;
  name: string;
  type: string;
  serialization_format: string;
}

/** How many rows are read between yields to the event loop. */
const BATCH = 4096;

const sqliteCode = (e: unknown): string => {
  const c = (e as { code?: unknown }).code;
  return typeof c === 'string' ? c : '';
};

export function openDb3Bag(bag: string, file: string): Promise<BagFile> {
  const fail = (what: string, e: unknown): BagError => {
    const code = sqliteCode(e);
    if (code === 'SQLITE_CANTOPEN') return new BagError(bag, `cannot open ${file}: ${errText(e)}`, 'not-found', { cause: e });
    const kind = code === 'SQLITE_NOTADB' ? 'not-sqlite' : code.startsWith('SQLITE_CORRUPT') ? 'corrupt' : 'invalid-input';
    return new BagError(bag, `${file}: ${what}: ${errText(e)}${kind === 'corrupt' ? ' (the file is truncated or damaged)' : ''}`, kind, { cause: e });
  };
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    return Promise.reject(fail('cannot open as SQLite', e));
  }
  try {
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    for (const t of ['topics', 'messages']) if (!tables.has(t)) throw new BagError(bag, `${file} has no ${t} table: not a rosbag2 .db3 file`);
    const topicRows = db.prepare('SELECT id, name, type, serialization_format FROM topics ORDER BY id').all() as TopicRow[];
    let distro: string | null = null;
    if (tables.has('schema')) {
      const r = db.prepare('SELECT ros_distro FROM schema LIMIT 1').get() as { ros_distro?: unknown } | undefined;
      if (typeof r?.ros_distro === 'string' && r.ros_distro !== '') distro = r.ros_distro;
    }
    const defRows = tables.has('message_definitions')
      ? (db.prepare('SELECT topic_type, encoding, encoded_message_definition FROM message_definitions').all() as { topic_type: string; encoding: string; encoded_message_definition: string }[])
      : [];
    const range = db.prepare('SELECT MIN(timestamp) AS lo, MAX(timestamp) AS hi FROM messages').safeIntegers(true).get() as { lo: bigint | null; hi: bigint | null };
    const timeRange: [bigint, bigint] | null = range.lo !== null && range.hi !== null ? [range.lo, range.hi] : null;
    return Promise.resolve(db3File(bag, file, db, topicRows, distro, timeRange, defRows, fail));
  } catch (e) {
    db.close();
    return Promise.reject(e instanceof BagError ? e : fail('cannot read the bag\'s tables', e));
  }
}

function db3File(
  bag: string, file: string, db: Database.Database, topicRows: readonly TopicRow[], distro: string | null, timeRange: readonly [bigint, bigint] | null,
  defRows: readonly { topic_type: string; encoding: string; encoded_message_definition: string }[],
  fail: (what: string, e: unknown) => BagError,
): BagFile {
  const topics: BagTopic[] = topicRows.map((r) => ({ name: r.name, type: r.type, serialization: r.serialization_format }));
  const defs = new Map<string, MessageDefinition[] | null>();
  return {
    file, storage: 'sqlite3', distro, topics, timeRange,
    definition(type) {
      if (!defs.has(type)) {
        const row = defRows.find((r) => r.topic_type === type);
        try {
          defs.set(type, row === undefined ? null : ros2msgDefinitions(row.encoding, new TextEncoder().encode(row.encoded_message_definition)));
        } catch (e) {
          throw new BagError(bag, `${file}: the message definition of ${type} does not parse: ${errText(e)}`, 'invalid-input', { cause: e });
        }
      }
      return defs.get(type)!;
    },
    async *messages(wanted): AsyncGenerator<BagMessage> {
      const byId = new Map(topicRows.filter((r) => wanted.includes(r.name)).map((r) => [r.id, r.name]));
      if (byId.size === 0) return;
      let last: bigint | null = null;
      const rows = (() => {
        try {
          return db.prepare(`SELECT topic_id, timestamp, data FROM messages WHERE topic_id IN (${[...byId.keys()].map(() => '?').join(', ')}) ORDER BY timestamp, id`)
            .safeIntegers(true).iterate(...[...byId.keys()]) as IterableIterator<{ topic_id: bigint; timestamp: bigint; data: Uint8Array }>;
        } catch (e) {
          throw fail('cannot query its messages', e);
        }
      })();
      try {
        for (;;) {
          const batch: BagMessage[] = [];
          try {
            for (let i = 0; i < BATCH; i++) {
              const r = rows.next();
              if (r.done === true) break;
              last = r.value.timestamp;
              batch.push({ topic: byId.get(Number(r.value.topic_id))!, logTime: r.value.timestamp, data: r.value.data });
            }
          } catch (e) {
            throw fail(`reading messages failed after ${last === null ? 'the start' : `receive time ${stampText(last)}`}`, e);
          }
          yield* batch;
          if (batch.length < BATCH) return;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      } finally {
        rows.return?.();
      }
    },
    counts: () => {
      try {
        const rows = db.prepare('SELECT topic_id, COUNT(*) AS n FROM messages GROUP BY topic_id').all() as { topic_id: number; n: number }[];
        const out = new Map<string, number>(topicRows.map((r) => [r.name, 0]));
        for (const r of rows) {
          const name = topicRows.find((t) => t.id === r.topic_id)?.name;
          if (name !== undefined) out.set(name, (out.get(name) ?? 0) + r.n);
        }
        return Promise.resolve(out);
      } catch (e) {
        return Promise.reject(fail('cannot count its messages', e));
      }
    },
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

/**
 * A .db3 bag at the SQLite level, for the bag benchmark (and tests that need a large bag): a
 * writer of rosbag2's Jazzy tables (schema 4) that takes messages already encoded, and the query
 * the .db3 reader runs, iterated without decoding (what the reader is measured against). The
 * reader itself is db3.ts.
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';

/** A topic of the bag: its name, its full type (`pkg/msg/Type`) and its ros2msg definition text. */
export interface Db3Topic {
  readonly topic: string;
  readonly type: string;
  readonly definition: string;
}

/** Messages go in by topic index (into the topics given), in transactions of this many rows. */
const BATCH = 2_000;

/** A new .db3 with Jazzy's rosbag2 tables (schema 4) and the topics; CDR messages are added in batches. */
export function db3BagWriter(
  file: string,
  topics: readonly Db3Topic[],
): {
  size(): bigint;
  add(topic: number, ns: bigint, data: Uint8Array): Promise<void>;
  end(): Promise<void>;
  close(): Promise<void>;
} {
  const db = new Database(file);
  db.pragma('journal_mode = MEMORY');
  db.pragma('synchronous = OFF');
  db.exec(`
    CREATE TABLE schema(schema_version INTEGER PRIMARY KEY, ros_distro TEXT NOT NULL);
    CREATE TABLE metadata(id INTEGER PRIMARY KEY, metadata_version INTEGER NOT NULL, metadata TEXT NOT NULL);
    CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, serialization_format TEXT NOT NULL, offered_qos_profiles TEXT NOT NULL, type_description_hash TEXT NOT NULL);
    CREATE TABLE message_definitions(id INTEGER PRIMARY KEY, topic_type TEXT NOT NULL, encoding TEXT NOT NULL, encoded_message_definition TEXT NOT NULL, type_description_hash TEXT NOT NULL);
    CREATE TABLE messages(id INTEGER PRIMARY KEY, topic_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, data BLOB NOT NULL);
    CREATE INDEX timestamp_idx ON messages (timestamp ASC);
  `);
  db.prepare('INSERT INTO schema VALUES (4, ?)').run('jazzy');
  topics.forEach((t, i) => {
    db.prepare('INSERT INTO topics VALUES (?, ?, ?, ?, ?, ?)').run(i + 1, t.topic, t.type, 'cdr', '', '');
    db.prepare(
      'INSERT INTO message_definitions (topic_type, encoding, encoded_message_definition, type_description_hash) VALUES (?, ?, ?, ?)',
    ).run(t.type, 'ros2msg', t.definition, '');
  });
  const ins = db.prepare('INSERT INTO messages (topic_id, timestamp, data) VALUES (?, ?, ?)');
  const pending: [number, bigint, Uint8Array][] = [];
  const flush = db.transaction(() => {
    for (const [t, ns, data] of pending) ins.run(t + 1, ns, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  });
  let written = 0n;
  const drain = (): void => {
    flush();
    pending.length = 0;
    written = BigInt(statSync(file).size);
  };
  return {
    size: () => written,
    add: (topic, ns, data) => {
      pending.push([topic, ns, data]);
      if (pending.length >= BATCH) drain();
      return Promise.resolve();
    },
    end: () => {
      drain();
      return Promise.resolve();
    },
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

/**
 * The messages of the named topics, iterated with the query the .db3 reader runs (in timestamp
 * order, through timestamp_idx), not decoded; returns how many have data.
 */
export function scanDb3Rows(file: string, topicNames: readonly string[]): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const ids = (
      db
        .prepare(`SELECT id FROM topics WHERE name IN (${topicNames.map(() => '?').join(', ')})`)
        .all(...topicNames) as {
        id: number;
      }[]
    ).map((r) => r.id);
    const rows = db
      .prepare(
        `SELECT topic_id, timestamp, data FROM messages WHERE topic_id IN (${ids.map(() => '?').join(', ')}) ORDER BY timestamp, id`,
      )
      .safeIntegers(true);
    let n = 0;
    for (const r of rows.iterate(...ids) as IterableIterator<{ data: Uint8Array }>) n += r.data.length > 0 ? 1 : 0;
    return n;
  } finally {
    db.close();
  }
}

/**
 * A rosbag2 sqlite3 file (.db3: Humble's default storage). Tables: `topics` (id, name, type,
 * serialization_format, offered_qos_profiles; Jazzy adds type_description_hash), `messages` (id,
 * topic_id, timestamp in ns, data as CDR), `schema` (schema_version, ros_distro: 3 and "humble",
 * 4 and "jazzy"), and since Iron `message_definitions` (topic_type, encoding,
 * encoded_message_definition). Opened read-only; messages are iterated row by row in timestamp
 * order (the recorder's timestamp_idx), never loaded whole. A file cut short is refused when SQLite
 * meets the missing pages.
 *
 * A .db3 is a foreign file, opened defensively (checkTables): SQLite's defensive mode (better-sqlite3
 * sets it), schema functions untrusted, and the tables read must be plain tables without generated
 * columns (a view, a virtual table or a computed column would run the file's own SQL on every
 * row). What is read is bounded by BAG_LIMITS before it is read: the topics and definitions (their
 * count and lengths), and each message row (its timestamp an integer, its data a blob no larger than
 * the limit for one message, checked by SQL before the blob is loaded).
 */
import Database from 'better-sqlite3';
import type { MessageDefinition } from '@foxglove/message-definition';
import type { BagFile, BagMessage, BagTopic } from './bag.js';
import { BagError, errText, fileOf, stampText } from './errors.js';
import { BAG_LIMITS, bytesText } from './limits.js';
import { ros2msgDefinitions } from './mcap.js';

interface TopicRow {
  id: number;
  name: string;
  type: string;
  serialization_format: string;
}

/** How many rows (and at most how many bytes of them) are read between yields to the event loop. */
const BATCH = 4096;
const BATCH_BYTES = 16 * 1024 * 1024;

const sqliteCode = (e: unknown): string => {
  const c = (e as { code?: unknown }).code;
  return typeof c === 'string' ? c : '';
};

type Fail = (what: string, e: unknown) => BagError;

/** The tables this reader reads, as the recorder writes them: plain tables whose columns are stored, not computed. */
function checkTables(bag: string, file: string, db: Database.Database): Set<string> {
  const entries = db.prepare('SELECT type, name, sql FROM sqlite_master').all() as {
    type: string;
    name: string;
    sql: string | null;
  }[];
  const tables = new Set<string>();
  for (const e of entries) {
    if (!['topics', 'messages', 'schema', 'message_definitions'].includes(e.name)) continue;
    if (e.type !== 'table')
      throw new BagError(
        bag,
        `${fileOf(bag, file)}${e.name} is a ${e.type}, not a table: a rosbag2 .db3 stores its ${e.name} in a table`,
      );
    if (/^\s*CREATE\s+VIRTUAL\s/i.test(e.sql ?? ''))
      throw new BagError(
        bag,
        `${fileOf(bag, file)}${e.name} is a virtual table: a rosbag2 .db3 stores its ${e.name} in a plain table`,
      );
    const generated = (
      db.prepare(`PRAGMA table_xinfo("${e.name}")`).all() as { name: string; hidden: number }[]
    ).filter((c) => c.hidden !== 0);
    if (generated.length > 0) {
      throw new BagError(
        bag,
        `${fileOf(bag, file)}the ${e.name} table has generated columns (${generated.map((c) => c.name).join(', ')}): a rosbag2 .db3 stores its values, and this reader does not run a file's own SQL`,
      );
    }
    tables.add(e.name);
  }
  for (const t of ['topics', 'messages'])
    if (!tables.has(t)) throw new BagError(bag, `${file} has no ${t} table: not a rosbag2 .db3 file`);
  return tables;
}

/** The topics table, within BAG_LIMITS: how many rows, the types and lengths of their columns. */
function readTopics(bag: string, file: string, db: Database.Database): TopicRow[] {
  const cols = ['name', 'type', 'serialization_format'];
  const shape = db
    .prepare(
      `SELECT count(*) AS n, max(max(${cols.map((c) => `length(${c})`).join(', ')})) AS longest,
    sum(typeof(id) != 'integer' OR ${cols.map((c) => `typeof(${c}) != 'text'`).join(' OR ')}) AS odd FROM topics`,
    )
    .get() as { n: number; longest: number | null; odd: number | null };
  if (shape.n > BAG_LIMITS.topics)
    throw new BagError(
      bag,
      `${fileOf(bag, file)}${shape.n} topics, over ${BAG_LIMITS.topics} (the limit for one file's topics)`,
      'too-large',
    );
  if ((shape.odd ?? 0) > 0)
    throw new BagError(
      bag,
      `${fileOf(bag, file)}${shape.odd} rows of the topics table have an id that is not an integer, or a name, type or serialization_format that is not text`,
    );
  if ((shape.longest ?? 0) > BAG_LIMITS.nameChars)
    throw new BagError(
      bag,
      `${fileOf(bag, file)}a topic's name, type or serialization_format has ${shape.longest} characters, over ${BAG_LIMITS.nameChars} (the limit for a name)`,
      'too-large',
    );
  return db.prepare('SELECT id, name, type, serialization_format FROM topics ORDER BY id').all() as TopicRow[];
}

/**
 * The message_definitions table (Iron and later) checked within BAG_LIMITS; a definition is read when its type is
 * decoded.
 */
function checkDefinitions(bag: string, file: string, db: Database.Database): void {
  const shape = db
    .prepare(
      `SELECT count(*) AS n, max(max(length(topic_type), length(encoding))) AS longest,
    max(length(CAST(encoded_message_definition AS BLOB))) AS biggest,
    sum(typeof(topic_type) != 'text' OR typeof(encoding) != 'text' OR typeof(encoded_message_definition) != 'text') AS odd FROM message_definitions`,
    )
    .get() as { n: number; longest: number | null; biggest: number | null; odd: number | null };
  if (shape.n > BAG_LIMITS.topics)
    throw new BagError(
      bag,
      `${fileOf(bag, file)}${shape.n} message definitions, over ${BAG_LIMITS.topics} (the limit for one file's topics)`,
      'too-large',
    );
  if ((shape.odd ?? 0) > 0)
    throw new BagError(
      bag,
      `${fileOf(bag, file)}${shape.odd} rows of the message_definitions table have a topic_type, encoding or encoded_message_definition that is not text`,
    );
  if ((shape.longest ?? 0) > BAG_LIMITS.nameChars)
    throw new BagError(
      bag,
      `${fileOf(bag, file)}a message definition's topic_type or encoding has ${shape.longest} characters, over ${BAG_LIMITS.nameChars} (the limit for a name)`,
      'too-large',
    );
  if ((shape.biggest ?? 0) > BAG_LIMITS.definitionBytes) {
    throw new BagError(
      bag,
      `${fileOf(bag, file)}a message definition has ${bytesText(shape.biggest ?? 0)}, over ${bytesText(BAG_LIMITS.definitionBytes)} (the limit for one definition)`,
      'too-large',
    );
  }
}

/**
 * The first and last receive times, from the index; timestamps that are not integers are refused here (NULL ones where
 * their rows are read).
 */
function readTimeRange(bag: string, file: string, db: Database.Database): [bigint, bigint] | null {
  const r = db.prepare('SELECT MIN(timestamp) AS lo, MAX(timestamp) AS hi FROM messages').safeIntegers(true).get() as {
    lo: unknown;
    hi: unknown;
  };
  for (const v of [r.lo, r.hi]) {
    if (v === null || typeof v === 'bigint') continue;
    const what =
      typeof v === 'number' ? `a real number (${v})` : typeof v === 'string' ? `text (${v.slice(0, 40)})` : 'a blob';
    throw new BagError(
      bag,
      `${fileOf(bag, file)}the messages table has a timestamp that is ${what}, not an integer number of nanoseconds`,
    );
  }
  return typeof r.lo === 'bigint' && typeof r.hi === 'bigint' ? [r.lo, r.hi] : null;
}

export function openDb3Bag(bag: string, file: string): Promise<BagFile> {
  const fail: Fail = (what, e) => {
    const code = sqliteCode(e);
    if (code === 'SQLITE_CANTOPEN')
      return new BagError(bag, `cannot open ${file}: ${errText(e)}`, 'not-found', { cause: e });
    const kind =
      code === 'SQLITE_NOTADB' ? 'not-sqlite' : code.startsWith('SQLITE_CORRUPT') ? 'corrupt' : 'invalid-input';
    return new BagError(
      bag,
      `${file}: ${what}: ${errText(e)}${kind === 'corrupt' ? ' (the file is truncated or damaged)' : ''}`,
      kind,
      { cause: e },
    );
  };
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('trusted_schema = OFF');
    db.pragma('query_only = ON');
  } catch (e) {
    return Promise.reject(fail('cannot open as SQLite', e));
  }
  try {
    const tables = checkTables(bag, file, db);
    const topicRows = readTopics(bag, file, db);
    let distro: string | null = null;
    if (tables.has('schema')) {
      const r = db
        .prepare(
          "SELECT CASE WHEN typeof(ros_distro) = 'text' AND length(ros_distro) <= ? THEN ros_distro END AS ros_distro FROM schema LIMIT 1",
        )
        .get(BAG_LIMITS.nameChars) as { ros_distro?: unknown } | undefined;
      if (typeof r?.ros_distro === 'string' && r.ros_distro !== '') distro = r.ros_distro;
    }
    const definitions = tables.has('message_definitions');
    if (definitions) checkDefinitions(bag, file, db);
    return Promise.resolve(db3File(bag, file, db, topicRows, distro, readTimeRange(bag, file, db), definitions, fail));
  } catch (e) {
    db.close();
    return Promise.reject(e instanceof BagError ? e : fail("cannot read the bag's tables", e));
  }
}

/**
 * A message row as queried: its data only when it is a blob within the limit (checked by SQL before the blob is
 * loaded).
 */
interface MessageRow {
  id: unknown;
  topic_id: bigint;
  timestamp: unknown;
  ttype: string;
  dtype: string;
  bytes: bigint | null;
  data: Uint8Array | null;
}

const MESSAGE_QUERY = (
  ids: number,
) => `SELECT id, topic_id, timestamp, typeof(timestamp) AS ttype, typeof(data) AS dtype, length(data) AS bytes,
  CASE WHEN typeof(data) = 'blob' AND length(data) <= ${BAG_LIMITS.messageBytes} THEN data END AS data
  FROM messages WHERE topic_id IN (${Array.from({ length: ids }, () => '?').join(', ')}) ORDER BY timestamp, id`;

/** A row as a message, or a BagError saying what is wrong with its timestamp or data. */
function rowMessage(bag: string, file: string, topic: string, r: MessageRow): BagMessage {
  const which = `${fileOf(bag, file)}topic ${topic}: the message with id ${String(r.id)}`;
  if (typeof r.timestamp !== 'bigint') {
    const value =
      r.ttype === 'null'
        ? 'NULL'
        : `${r.ttype === 'real' ? 'a real number' : r.ttype === 'text' ? 'text' : 'a blob'} (${String(r.timestamp).slice(0, 40)})`;
    throw new BagError(bag, `${which} has a timestamp that is ${value}, not an integer number of nanoseconds`);
  }
  const at = `${which}, received at ${stampText(r.timestamp)},`;
  if (r.dtype === 'null') throw new BagError(bag, `${at} has no data (NULL)`);
  if (r.dtype !== 'blob')
    throw new BagError(bag, `${at} has data that is ${r.dtype === 'text' ? 'text' : 'a number'}, not a blob of CDR`);
  if (r.data === null)
    throw new BagError(
      bag,
      `${at} has ${bytesText(r.bytes ?? 0n)} of data, over ${bytesText(BAG_LIMITS.messageBytes)} (the limit for one message)`,
      'too-large',
    );
  return { topic, logTime: r.timestamp, data: r.data };
}

function db3File(
  bag: string,
  file: string,
  db: Database.Database,
  topicRows: readonly TopicRow[],
  distro: string | null,
  timeRange: readonly [bigint, bigint] | null,
  definitions: boolean,
  fail: Fail,
): BagFile {
  const topics: BagTopic[] = topicRows.map((r) => ({
    name: r.name,
    type: r.type,
    serialization: r.serialization_format,
  }));
  const defs = new Map<string, MessageDefinition[] | null>();
  return {
    file,
    storage: 'sqlite3',
    distro,
    topics,
    timeRange,
    definition(type) {
      if (!defs.has(type)) {
        let row: { encoding: string; encoded_message_definition: string } | undefined;
        try {
          row = !definitions
            ? undefined
            : (db
                .prepare(
                  'SELECT encoding, encoded_message_definition FROM message_definitions WHERE topic_type = ? LIMIT 1',
                )
                .get(type) as typeof row);
        } catch (e) {
          throw fail(`cannot read the message definition of ${type}`, e);
        }
        try {
          defs.set(
            type,
            row === undefined
              ? null
              : ros2msgDefinitions(row.encoding, new TextEncoder().encode(row.encoded_message_definition)),
          );
        } catch (e) {
          throw new BagError(
            bag,
            `${file}: the message definition of ${type} does not parse: ${errText(e)}`,
            'invalid-input',
            { cause: e },
          );
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
          return db
            .prepare(MESSAGE_QUERY(byId.size))
            .safeIntegers(true)
            .iterate(...[...byId.keys()]) as IterableIterator<MessageRow>;
        } catch (e) {
          throw fail('cannot query its messages', e);
        }
      })();
      try {
        for (let done = false; !done;) {
          const batch: BagMessage[] = [];
          let bytes = 0;
          while (batch.length < BATCH && bytes < BATCH_BYTES) {
            let r: IteratorResult<MessageRow>;
            try {
              r = rows.next();
            } catch (e) {
              throw fail(
                `reading messages failed after ${last === null ? 'the start' : `receive time ${stampText(last)}`}`,
                e,
              );
            }
            if (r.done === true) {
              done = true;
              break;
            }
            const m = rowMessage(bag, file, byId.get(Number(r.value.topic_id))!, r.value);
            last = m.logTime;
            bytes += m.data.length;
            batch.push(m);
          }
          yield* batch;
          if (!done) await new Promise<void>((resolve) => setImmediate(resolve));
        }
      } finally {
        rows.return?.();
      }
    },
    counts: () => {
      try {
        const rows = db.prepare('SELECT topic_id, COUNT(*) AS n FROM messages GROUP BY topic_id').all() as {
          topic_id: number;
          n: number;
        }[];
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

/**
 * Exporting an audit database (opened read-only): JSON Lines, CSV, and MCAP with JSON-encoded
 * channels — one per event kind (tool calls one per tool, under the tool's own argument schema when
 * the log holds it), run metadata as MCAP metadata, and the specifications, regions and tool schemas
 * as attachments — so Foxglove or Lichtblick open it.
 *
 * Every format streams: events are read from SQLite one at a time (`.iterate()`), written through a
 * file stream with back-pressure into a temporary sibling, and renamed over the target at the end
 * (platform/files.ts writeAtomicStream), so memory does not grow with the run and a failed or
 * interrupted export leaves no half-written file.
 */
import type Database from 'better-sqlite3';
import { McapWriter } from '@mcap/core';
import { SinkWritable } from '../datasets/rosbag2/mcap-file.js';
import type { AuditExportFormat } from '../../contract/api/audit.js';
import { type RunSummary, listRuns, runSummary } from './runs.js';
import { FOXGLOVE_CHANNELS, type FoxgloveChannel, foxgloveStream } from './foxglove.js';
import { browserRunsOf } from './browse.js';
import {
  BLOB_COLUMNS,
  EVENT_COLUMNS,
  type EventRow,
  AuditValueError,
  blobOf,
  bodyOf,
  eventOf,
  jsonOr,
} from './rows.js';
import { type ByteSink, writeAtomicStream } from '../../platform/files.js';
import { AUDIT_EVENTS, type AuditEventKind } from '../../contract/audit-events.js';
import { jsonSchema } from '../../contract/schema.js';

export type ExportFormat = AuditExportFormat;

/** Every event, or one run's (`run`), in sequence order, each checked as every reader checks it (rows.ts). */
function* events(db: Database.Database, run?: string): Generator<EventRow> {
  const rows =
    run === undefined
      ? db.prepare(`SELECT ${EVENT_COLUMNS} FROM events ORDER BY seq`).iterate()
      : db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE run_id = ? ORDER BY seq`).iterate(run);
  for (const r of rows) yield eventOf(r);
}

/** The largest MCAP log time (unsigned 64-bit nanoseconds). */
const MAX_MCAP_NS = 2n ** 64n - 1n;

/**
 * A time in ms as an MCAP log time (ns since 1970); one before 1970 or past 2554 cannot be one: an error naming `what`.
 */
function mcapTime(t_ms: number, what: string): bigint {
  const ns = BigInt(Math.round(t_ms * 1e6));
  if (ns < 0n || ns > MAX_MCAP_NS)
    throw new AuditValueError(
      what,
      `its time ${t_ms} ms is ${ns < 0n ? 'before 1970' : 'past 2554'}, outside what an MCAP log time holds (unsigned 64-bit nanoseconds since 1970)`,
    );
  return ns;
}

/** The blobs of the kinds the MCAP export carries, checked. */
function blobsWhere(db: Database.Database, where: string): { sha256: string; kind: string; body: string }[] {
  return db.prepare(`SELECT ${BLOB_COLUMNS} FROM blobs WHERE ${where}`).all().map(blobOf);
}

const csvCell = (v: string | number | null): string => {
  const s = v === null ? '' : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One event as a line of the text formats (without the newline). */
function textLine(format: 'jsonl' | 'csv', e: EventRow): string {
  return format === 'jsonl'
    ? JSON.stringify({ ...e, body: bodyOf(e) })
    : [e.seq, e.run_id, e.t_ms, e.step, e.kind, e.tool, e.failure_label, e.prev_hash, e.hash, e.body]
        .map(csvCell)
        .join(',');
}

/**
 * Streams the JSON Lines or CSV export into `sink`, one event at a time from SQLite: every line ends
 * with a newline (a log with no events gives JSON Lines of one empty line, as the export always did).
 * Returns the number of events.
 */
async function exportTextTo(
  db: Database.Database,
  format: 'jsonl' | 'csv',
  sink: ByteSink,
  run?: string,
): Promise<number> {
  let n = 0;
  if (format === 'csv') await sink.write('seq,run_id,t_ms,step,kind,tool,failure_label,prev_hash,hash,body\n');
  for (const e of events(db, run)) {
    await sink.write(textLine(format, e) + '\n');
    n++;
  }
  if (n === 0 && format === 'jsonl') await sink.write('\n');
  return n;
}

/**
 * The JSON Schema of each event kind's channel: the stored row, with the body as the audit event catalogue defines it.
 */
function kindSchema(kind: string): object {
  const body = Object.hasOwn(AUDIT_EVENTS, kind) ? jsonSchema(AUDIT_EVENTS[kind as AuditEventKind]) : {};
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `witness audit ${kind}`,
    type: 'object',
    properties: {
      seq: { type: 'integer' },
      run_id: { type: 'string' },
      step: { type: ['integer', 'null'] },
      kind: { const: kind },
      tool: { type: ['string', 'null'] },
      failure_label: { type: ['string', 'null'] },
      hash: { type: 'string' },
      body,
    },
    required: ['seq', 'run_id', 'kind', 'body', 'hash'],
  };
}

export async function exportMcap(
  db: Database.Database,
  file: string,
  run?: string,
): Promise<{ channels: number; messages: number; foxglove: number; attachments: number }> {
  const enc = new TextEncoder();
  let messages = 0,
    foxglove = 0,
    attachments = 0;
  const channels = new Map<string, number>();
  await writeAtomicStream(file, async (sink) => {
    const w = new McapWriter({ writable: new SinkWritable(sink) });
    await w.start({ profile: '', library: 'witness audit export' });
    const toolSchemas = new Map<string, string>();
    for (const b of blobsWhere(db, "kind LIKE 'tool-schema:%'")) {
      toolSchemas.set(b.kind.slice('tool-schema:'.length), b.body);
    }
    const channelFor = async (e: EventRow): Promise<number> => {
      const topic = e.kind === 'tool_call' && e.tool !== null ? `/witness/tool_call/${e.tool}` : `/witness/${e.kind}`;
      let id = channels.get(topic);
      if (id === undefined) {
        // A tool schema blob that is not JSON (or nested too deep) is not used: the kind's schema instead.
        const own =
          e.kind === 'tool_call' && e.tool !== null
            ? jsonOr<object | undefined>(toolSchemas.get(e.tool), undefined)
            : undefined;
        const schema =
          own !== undefined
            ? {
                title: `witness audit tool_call ${e.tool}`,
                type: 'object',
                properties: { body: { type: 'object', properties: { arguments: own } } },
              }
            : kindSchema(e.kind);
        const schemaId = await w.registerSchema({
          name: topic,
          encoding: 'jsonschema',
          data: enc.encode(JSON.stringify(schema)),
        });
        id = await w.registerChannel({
          schemaId,
          topic,
          messageEncoding: 'json',
          metadata: new Map([['kind', e.kind]]),
        });
        channels.set(topic, id);
      }
      return id;
    };
    const seqOf = new Map<string, number>();
    for (const e of events(db, run)) {
      const channelId = await channelFor(e);
      const t = mcapTime(e.t_ms, `event ${e.seq}`);
      const sequence = (seqOf.get(e.run_id) ?? 0) + 1;
      seqOf.set(e.run_id, sequence);
      await w.addMessage({
        channelId,
        sequence,
        logTime: t,
        publishTime: t,
        data: enc.encode(JSON.stringify({ ...e, body: bodyOf(e) })),
      });
      messages++;
    }
    const runs =
      run === undefined ? listRuns(db) : [runSummary(db, run)].filter((r): r is RunSummary => r !== undefined);
    // The same runs in Foxglove's own schemas, so Foxglove and Lichtblick draw them unconfigured.
    const foxgloveIds = new Map<FoxgloveChannel, number>();
    for (const r of browserRunsOf(db, run)) {
      for (const m of foxgloveStream(db, r)) {
        let channelId = foxgloveIds.get(m.channel);
        if (channelId === undefined) {
          const c = FOXGLOVE_CHANNELS[m.channel];
          const schemaId = await w.registerSchema({
            name: c.schema.title,
            encoding: 'jsonschema',
            data: enc.encode(JSON.stringify(c.schema)),
          });
          channelId = await w.registerChannel({
            schemaId,
            topic: c.topic,
            messageEncoding: 'json',
            metadata: new Map(),
          });
          foxgloveIds.set(m.channel, channelId);
          channels.set(c.topic, channelId);
        }
        const t = mcapTime(Math.max(0, m.t_ms), `run ${r.id}'s ${m.channel} message`);
        await w.addMessage({
          channelId,
          sequence: 0,
          logTime: t,
          publishTime: t,
          data: enc.encode(JSON.stringify(m.message)),
        });
        foxglove++;
      }
    }
    const own = new Set(runs.flatMap((r) => [r.spec_sha, r.regions_sha]));
    for (const r of runs) await w.addMetadata({ name: `run ${r.id}`, metadata: runMetadata(r) });
    for (const b of blobsWhere(db, "kind = 'spec' OR kind = 'regions' OR kind LIKE 'tool-schema:%'")) {
      if (run !== undefined && (b.kind === 'spec' || b.kind === 'regions') && !own.has(b.sha256)) continue;
      const t = 0n;
      await w.addAttachment({
        name: `${b.kind}-${b.sha256.slice(0, 12)}${b.kind === 'spec' ? '.ltl' : '.json'}`,
        logTime: t,
        createTime: t,
        mediaType: b.kind === 'spec' ? 'text/plain' : 'application/json',
        data: enc.encode(b.body),
      });
      attachments++;
    }
    await w.end();
  });
  return { channels: channels.size, messages, foxglove, attachments };
}

function runMetadata(r: RunSummary): Map<string, string> {
  return new Map<string, string>([
    ['id', r.id],
    ['world', r.world],
    ['backend', r.backend],
    ['operator', r.operator],
    ['software', r.software],
    ['models', JSON.stringify(r.models)],
    ['started_ms', String(r.started_ms)],
    ['ended_ms', String(r.ended_ms ?? '')],
    ['outcome', r.outcome ?? ''],
    ['spec_sha256', r.spec_sha ?? ''],
    ['regions_sha256', r.regions_sha ?? ''],
  ]);
}

export async function exportAudit(
  db: Database.Database,
  format: ExportFormat,
  file: string,
  run?: string,
): Promise<string> {
  if (format === 'mcap') {
    const r = await exportMcap(db, file, run);
    return `${r.messages} messages on ${r.channels} channel(s) (with ${r.foxglove} more in foxglove.* schemas for Foxglove and Lichtblick), ${r.attachments} attachment(s)`;
  }
  let n = 0;
  await writeAtomicStream(file, async (sink) => {
    n = await exportTextTo(db, format, sink, run);
  });
  return `${n} events`;
}

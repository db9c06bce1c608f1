/**
 * `COPY … FROM STDIN` on a node-postgres client, through its custom-query interface (an object with `submit`, as
 * pg-copy-streams uses it): rows in COPY's text format, sent in chunks once the server asks for them. PostgreSQL
 * parses COPY's text faster than array literals, and the rows cost the client one string each instead of ten array
 * elements, so a push's events go this way.
 */
import type pg from 'pg';

/** The connection methods a custom query is handed (node-postgres' Connection). */
interface CopyConnection {
  readonly stream: NodeJS.WritableStream;
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

const CHUNK = 1024 * 1024;

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One value in COPY's text format: NULL as \N, numbers as JavaScript writes them (the shortest form that reads back
 * as the same double), text with backslash, tab, newline and carriage return escaped.
 */
export function copyValue(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return SPECIAL.test(s) ? s.replace(/[\\\t\n\r]/g, (ch) => ESCAPES[ch]!) : s;
}

/** Rows as COPY's text format: one line each, values separated by tabs, each line led by the values `lead`. */
export function copyText(rows: readonly (readonly unknown[])[], lead: readonly unknown[] = []): string {
  const first = lead.map((v) => `${copyValue(v)}\t`).join('');
  let out = '';
  for (const r of rows) out += `${first}${r.map(copyValue).join('\t')}\n`;
  return out;
}

/**
 * Runs `sql` (a `COPY … FROM STDIN`) sending `data` (text, or its UTF-8 bytes); resolves with the rows the server
 * copied. `onSent` is called once the data has left for the server (handed to the socket whole), while the server is
 * still copying: the time a caller has for work of its own.
 */
export function copyIn(c: pg.Client, sql: string, data: string | Buffer, onSent?: () => void): Promise<number> {
  return new Promise((resolve, reject) => {
    let rows = 0;
    let failed = false;
    const query = {
      submit: (con: CopyConnection): void => con.query(sql),
      handleCopyInResponse: (con: CopyConnection): void => {
        const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
        for (let at = 0; at < bytes.length; at += CHUNK) con.sendCopyFromChunk(bytes.subarray(at, at + CHUNK));
        con.endCopyFrom();
        // An empty write's callback runs once every write before it has gone to the socket.
        if (onSent !== undefined) con.stream.write(Buffer.alloc(0), () => onSent());
      },
      handleCommandComplete: (msg: { text?: string }): void => {
        rows = Number(/\d+$/.exec(msg.text ?? '')?.[0] ?? 0);
      },
      handleError: (e: Error): void => {
        failed = true;
        reject(e);
      },
      handleReadyForQuery: (): void => {
        if (!failed) resolve(rows);
      },
      handleRowDescription: (): void => {},
      handleDataRow: (): void => {},
      handlePortalSuspended: (): void => {},
      handleEmptyQuery: (): void => {},
      handleCopyData: (): void => {},
    };
    // (With a custom query the client returns it, not a promise: it answers through the handlers above.)
    void c.query(query as unknown as pg.QueryConfig);
  });
}

/**
 * Bounds on what an LLM server sends: a reply body read as a stream and abandoned once it passes a
 * byte limit (never buffered whole), and the first over-long string in a tool call's arguments.
 */

/**
 * The body as UTF-8 text; or, once more than `max` bytes came, `{ over: bytes read }` (the rest is
 * not read: the stream is cancelled), or `{ over, declared: true }` when Content-Length said so first.
 */
export async function readBounded(res: Response, max: number): Promise<string | { over: number; declared: boolean }> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    return { over: declared, declared: true };
  }
  if (res.body === null) return '';
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > max) {
      await reader.cancel().catch(() => undefined);
      return { over: n, declared: false };
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, n));
}

const key = (k: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k.length > 40 ? `${k.slice(0, 40)}…` : k)}]`;

/**
 * The first string (a value or an object key) in `value` longer than `max` UTF-8 bytes, with its
 * JSON path (`$.note`, `$.items[3]`); null when there is none. Iterative: arguments nested
 * thousands deep do not overflow the stack.
 */
export function longString(value: unknown, max: number): { path: string; bytes: number } | null {
  const bytes = (s: string): number => (s.length * 3 <= max ? s.length : Buffer.byteLength(s, 'utf8'));
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '$' }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const b = bytes(v);
      if (b > max) return { path, bytes: b };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]` });
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        const b = bytes(k);
        if (b > max) return { path: `${path} (a key)`, bytes: b };
        stack.push({ v: x, path: `${path}${key(k)}` });
      }
    }
  }
  return null;
}

/** 8388608 → "8 MiB", 65536 → "64 KiB", 1500 → "1500 bytes". */
export function bytesText(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

/**
 * Hostile inputs for the fuzzing suite: valid seed files mutated byte-wise (flips, extreme integers
 * in headers, truncation, insertions, duplicated slices), textually (tokens of the format spliced in,
 * deep nesting, huge literals) and structurally (a JSON value replaced by an extreme one), plus plain
 * random bytes. Every arbitrary is driven by fast-check, so a run is reproduced by its seed.
 */
import fc from 'fast-check';

type ByteOp =
  | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
  | { readonly kind: 'set'; readonly at: number; readonly value: number }
  | { readonly kind: 'int'; readonly at: number; readonly width: 2 | 4 | 8; readonly value: number }
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'insert'; readonly at: number; readonly bytes: Uint8Array }
  | { readonly kind: 'delete'; readonly at: number; readonly len: number }
  | { readonly kind: 'duplicate'; readonly at: number; readonly len: number; readonly times: number };

/** Integers that break size and offset fields: zero, one, sign boundaries, all ones. */
const EXTREME_INTS = [0, 1, 0x7f, 0xff, 0x7fff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff] as const;

const byteOp: fc.Arbitrary<ByteOp> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant('set' as const),
    at: fc.nat(),
    value: fc.constantFrom(0, 0xff, 0x7f, 0x80, 0x22, 0x30, 0x39, 0x2d, 0x0a),
  }),
  fc.record({
    kind: fc.constant('int' as const),
    at: fc.nat(),
    width: fc.constantFrom(2 as const, 4 as const, 8 as const),
    value: fc.constantFrom(...EXTREME_INTS),
  }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 32 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 64 }) }),
  fc.record({
    kind: fc.constant('duplicate' as const),
    at: fc.nat(),
    len: fc.integer({ min: 1, max: 256 }),
    times: fc.integer({ min: 1, max: 64 }),
  }),
);

function applyByteOp(b: Uint8Array, op: ByteOp): Uint8Array {
  if (b.length === 0) return op.kind === 'insert' ? op.bytes.slice() : b;
  const at = op.at % b.length;
  switch (op.kind) {
    case 'flip': {
      const c = b.slice();
      c[at] = c[at]! ^ (1 << op.bit);
      return c;
    }
    case 'set': {
      const c = b.slice();
      c[at] = op.value;
      return c;
    }
    case 'int': {
      const c = b.slice();
      const v = BigInt(op.value);
      for (let i = 0; i < op.width && at + i < c.length; i++) c[at + i] = Number((v >> BigInt(8 * i)) & 0xffn);
      return c;
    }
    case 'truncate':
      return b.slice(0, at);
    case 'insert':
      return concat(b.subarray(0, at), op.bytes, b.subarray(at));
    case 'delete':
      return concat(b.subarray(0, at), b.subarray(Math.min(b.length, at + op.len)));
    case 'duplicate': {
      const slice = b.subarray(at, Math.min(b.length, at + op.len));
      return concat(
        b.subarray(0, at),
        ...Array.from({ length: op.times + 1 }, () => slice),
        b.subarray(at + slice.length),
      );
    }
  }
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** One of the seeds with one to four byte-level mutations, or (one case in ten) random bytes. */
export function mutatedBytes(seeds: readonly Uint8Array[]): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    {
      weight: 9,
      arbitrary: fc
        .tuple(fc.constantFrom(...seeds), fc.array(byteOp, { minLength: 1, maxLength: 4 }))
        .map(([s, ops]) => ops.reduce(applyByteOp, s)),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2048 }) },
  );
}

const utf8 = new TextEncoder();
const text = new TextDecoder('utf-8');

/** Tokens every text format shares: nesting that is deep, literals that are huge, characters that break lexers. */
const HOSTILE_TEXT = [
  '['.repeat(20_000),
  '{"a":'.repeat(5_000),
  '('.repeat(20_000),
  '"' + 'x'.repeat(200_000) + '"',
  '9'.repeat(400),
  '1e999',
  '-1e999',
  '\u0000',
  '\uFFFF',
  '\uD800',
  '\r\n',
  '\t',
  '\\',
  '"',
  "'",
  '$',
  '%',
  '#',
];

/**
 * A seed text with one to three edits: a character range deleted or duplicated, a token of the
 * format or a hostile token spliced in; byte mutations of the UTF-8 cover broken encodings.
 */
export function mutatedText(seeds: readonly string[], tokens: readonly string[]): fc.Arbitrary<string> {
  const dictionary = [...tokens, ...HOSTILE_TEXT];
  const edit = fc.oneof(
    fc.record({
      kind: fc.constant('splice' as const),
      at: fc.nat(),
      token: fc.constantFrom(...dictionary),
      times: fc.constantFrom(1, 1, 1, 2, 50, 2_000),
    }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
    fc.record({
      kind: fc.constant('repeat' as const),
      at: fc.nat(),
      len: fc.integer({ min: 1, max: 60 }),
      times: fc.constantFrom(2, 10, 500, 5_000),
    }),
  );
  const edited = fc.tuple(fc.constantFrom(...seeds), fc.array(edit, { minLength: 1, maxLength: 3 })).map(([s, edits]) =>
    edits.reduce((t, e) => {
      const at = t.length === 0 ? 0 : e.at % (t.length + 1);
      // At most ~2 MB spliced in: bigger inputs are the input caps' business (a reader is not fed 400 MB here).
      if (e.kind === 'splice')
        return (
          t.slice(0, at) +
          e.token.repeat(Math.max(1, Math.min(e.times, Math.floor(2_000_000 / e.token.length)))) +
          t.slice(at)
        );
      if (e.kind === 'delete') return t.slice(0, at) + t.slice(at + e.len);
      const piece = t.slice(at, at + e.len);
      return t.slice(0, at) + piece.repeat(e.times) + t.slice(at + piece.length);
    }, s),
  );
  const bytewise = mutatedBytes(seeds.map((s) => utf8.encode(s))).map((b) => text.decode(b));
  return fc.oneof({ weight: 3, arbitrary: edited }, { weight: 1, arbitrary: bytewise });
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Values that a schema-checked reader must refuse or survive. */
const EXTREME_VALUES: readonly (() => Json)[] = [
  () => null,
  () => true,
  () => 0,
  () => -1,
  () => 0.5,
  () => 1e308,
  () => -1e308,
  () => 2 ** 53 + 1,
  () => 4294967296,
  () => '',
  () => 'x'.repeat(100_000),
  () => '\u0000',
  () => '../../../etc/passwd',
  () => [],
  () => ({}),
  () => Array.from({ length: 50_000 }, (_, i) => i),
  () => Array.from({ length: 2_000 }, () => ({ name: 'e0' })),
  () => JSON.parse('['.repeat(3_000) + ']'.repeat(3_000)) as Json,
  () => JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1}}') as Json,
];

/** Every path (as keys) to a value in `v`, the root included. */
function paths(v: Json, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (at.length >= 40) return out;
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

function replaceAt(v: Json, at: readonly (string | number)[], by: Json): Json {
  if (at.length === 0) return by;
  const [head, ...rest] = at;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? replaceAt(x, rest, by) : x));
  const o = v as Record<string, Json>;
  return { ...o, [head!]: replaceAt(o[head!] as Json, rest, by) };
}

/** A seed JSON document with one to three values replaced by extreme ones, or a key dropped or added. */
function mutatedJson(seeds: readonly string[]): fc.Arbitrary<string> {
  const docs = seeds.map((s) => JSON.parse(s) as Json);
  const edit = fc.record({
    path: fc.nat(),
    value: fc.nat({ max: EXTREME_VALUES.length - 1 }),
    kind: fc.constantFrom('replace', 'replace', 'drop', 'add'),
  });
  return fc
    .tuple(fc.nat({ max: docs.length - 1 }), fc.array(edit, { minLength: 1, maxLength: 3 }))
    .map(([i, edits]) => {
      let doc = docs[i] as Json;
      for (const e of edits) {
        const all = paths(doc);
        const at = all[e.path % all.length]!;
        if (e.kind === 'replace') doc = replaceAt(doc, at, EXTREME_VALUES[e.value]!());
        else if (e.kind === 'drop' && at.length > 0) {
          const parentPath = at.slice(0, -1),
            key = at[at.length - 1]!;
          const parent = get(doc, parentPath);
          if (Array.isArray(parent))
            doc = replaceAt(
              doc,
              parentPath,
              parent.filter((_, j) => j !== key),
            );
          else if (parent !== null && typeof parent === 'object') {
            const { [key]: _dropped, ...kept } = parent;
            doc = replaceAt(doc, parentPath, kept);
          }
        } else if (e.kind === 'add') {
          const target = get(doc, at);
          if (target !== null && typeof target === 'object' && !Array.isArray(target))
            doc = replaceAt(doc, at, { ...target, unexpected: EXTREME_VALUES[e.value]!() });
        }
      }
      return JSON.stringify(doc);
    });
}

function get(v: Json, at: readonly (string | number)[]): Json {
  return at.reduce<Json>((x, k) => (x as Record<string | number, Json>)[k] as Json, v);
}

/** JSON formats: structural, textual and byte-level mutations of the seed documents. */
export function hostileJson(seeds: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: mutatedJson(seeds) },
    {
      weight: 2,
      arbitrary: mutatedText(seeds, [
        '{',
        '}',
        '[',
        ']',
        ',',
        ':',
        '"',
        'null',
        'true',
        '-0',
        '1e-400',
        '0.1e1',
        '"\\u0000"',
      ]),
    },
  );
}

/** Nested arrays, objects or both, `depth` levels around `inner`. */
export function nested(depth: number, shape: 'array' | 'object' | 'mixed', inner = '1'): string {
  const open = (i: number): string => (shape === 'array' || (shape === 'mixed' && i % 2 === 0) ? '[' : '{"k":');
  const close = (i: number): string => (shape === 'array' || (shape === 'mixed' && i % 2 === 0) ? ']' : '}');
  let head = '',
    tail = '';
  for (let i = 0; i < depth; i++) {
    head += open(i);
    tail = close(i) + tail;
  }
  return head + inner + tail;
}

/**
 * ROS 2 messages from CDR, as @foxglove/rosmsg2-serialization's MessageReader decodes them (the same
 * values: typed arrays for numbers, `{sec, nanosec}` for times, an empty message read as its one
 * byte), with every length a message declares checked before it is read. MessageReader trusts them:
 * a sequence of 2^32 − 1 elements of a type that takes no bytes (`uint8[0]` inside) loops four
 * billion times, and a byte-swapped float64[] is allocated at its declared length before a byte of
 * it is read. Here, from the definitions (which come from the bag, so from whoever wrote it):
 * - each type's least size in bytes is worked out first (a type that holds itself other than through a
 *   sequence has none and is refused);
 * - a sequence's or array's length × its element's least size must fit in the bytes left;
 * - elements of zero size, and every element that becomes a value of its own (messages, booleans,
 *   strings, times), are counted against BAG_LIMITS.decodedValues for the whole message.
 * Errors are plain Errors naming the field and the limit; the caller names the bag, topic and time.
 */
import { CdrReader } from '@foxglove/cdr';
import type { MessageDefinition, MessageDefinitionField } from '@foxglove/message-definition';
import { BAG_LIMITS } from './limits.js';

type Fields = readonly MessageDefinitionField[];

/** Bytes of each primitive as CDR stores it (a string: its length prefix at least). */
const PRIMITIVE_SIZE: Readonly<Record<string, number>> = {
  bool: 1,
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  int64: 8,
  uint64: 8,
  float32: 4,
  float64: 8,
  string: 4,
  time: 8,
  duration: 8,
};

/** Primitive arrays decoded into a typed array over the bytes (no value of their own per element). */
const TYPED: Readonly<Record<string, (r: CdrReader, n: number) => unknown>> = {
  int8: (r, n) => r.int8Array(n),
  uint8: (r, n) => r.uint8Array(n),
  int16: (r, n) => r.int16Array(n),
  uint16: (r, n) => r.uint16Array(n),
  int32: (r, n) => r.int32Array(n),
  uint32: (r, n) => r.uint32Array(n),
  int64: (r, n) => r.int64Array(n),
  uint64: (r, n) => r.uint64Array(n),
  float32: (r, n) => r.float32Array(n),
  float64: (r, n) => r.float64Array(n),
};

const hasData = (fields: Fields): boolean => fields.some((f) => f.isConstant !== true);
const isConstantModule = (d: MessageDefinition): boolean =>
  d.definitions.length > 0 && d.definitions.every((f) => f.isConstant === true);

const WSTRING = 'wstring is implementation-defined and therefore not supported';

interface Budget {
  left: number;
}

export class BoundedMessageReader {
  readonly #root: Fields;
  readonly #types = new Map<string, Fields>();
  readonly #least = new Map<Fields, number>();

  constructor(definitions: readonly MessageDefinition[]) {
    const root = definitions.find((d) => !isConstantModule(d));
    if (root === undefined) throw new Error('the definition has no message type, only constants');
    this.#root = root.definitions;
    for (const d of definitions) this.#types.set(d.name ?? '', d.definitions);
    this.#leastOf(this.#root, []);
  }

  /** Decodes one message; an Error names the field whose length does not fit. */
  readMessage(data: Uint8Array): unknown {
    const r = new CdrReader(data);
    return this.#message(this.#root, r, { left: BAG_LIMITS.decodedValues });
  }

  /** The fewest bytes a message of these fields takes (alignment only adds to it). */
  #leastOf(fields: Fields, path: readonly string[]): number {
    const known = this.#least.get(fields);
    if (known !== undefined) return known;
    if (!hasData(fields)) return 1;
    let n = 0;
    for (const f of fields) {
      if (f.isConstant === true) continue;
      // A sequence takes its length prefix; its elements are checked against the bytes when it is read.
      if (f.isArray === true && f.arrayLength === undefined) {
        n += 4;
        continue;
      }
      if (f.isArray === true && f.arrayLength === 0) continue;
      let each = PRIMITIVE_SIZE[f.type] ?? 0;
      if (f.isComplex === true) {
        const nested = this.#types.get(f.type);
        if (nested !== undefined && path.includes(f.type))
          throw new Error(
            `type ${f.type} holds itself (${[...path, f.type].join(' → ')}) other than through a sequence: it has no end`,
          );
        each = nested === undefined ? 0 : this.#leastOf(nested, [...path, f.type]);
      }
      n += (f.arrayLength ?? 1) * each;
    }
    this.#least.set(fields, n);
    return n;
  }

  /**
   * Admits `n` elements of `least` bytes each for field `f`: they fit in the bytes left, and those that become values
   * fit in the budget.
   */
  #admit(f: MessageDefinitionField, n: number, least: number, values: boolean, r: CdrReader, b: Budget): void {
    const left = r.byteLength - r.offset;
    if (least > 0 && n * least > left) {
      throw new Error(
        `field ${f.name}: ${n} elements of at least ${least} bytes need ${n * least} bytes; the message has ${Math.max(0, left)} left`,
      );
    }
    if (values || least === 0) {
      if (n > b.left) {
        throw new Error(
          `field ${f.name}: ${n} elements${least === 0 ? ' of zero size' : ''} are more than the ${BAG_LIMITS.decodedValues} values one message may decode (the limit for a decoded message)`,
        );
      }
      b.left -= n;
    }
  }

  #message(fields: Fields, r: CdrReader, b: Budget): Record<string, unknown> {
    const msg: Record<string, unknown> = {};
    if (!hasData(fields)) {
      // ROS 2 gives an empty message one byte (`uint8 structure_needs_at_least_one_member`).
      r.uint8();
      return msg;
    }
    for (const f of fields) {
      if (f.isConstant === true) continue;
      msg[f.name] = f.isComplex === true ? this.#complex(f, r, b) : this.#primitive(f, r, b);
    }
    return msg;
  }

  #complex(f: MessageDefinitionField, r: CdrReader, b: Budget): unknown {
    const nested = this.#types.get(f.type);
    if (nested === undefined) throw new Error(`Unrecognized complex type ${f.type}`);
    if (f.isArray !== true) return this.#message(nested, r, b);
    const n = f.arrayLength ?? r.sequenceLength();
    this.#admit(f, n, this.#leastOf(nested, [f.type]), true, r, b);
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < n; i++) out.push(this.#message(nested, r, b));
    return out;
  }

  #primitive(f: MessageDefinitionField, r: CdrReader, b: Budget): unknown {
    if (f.type === 'wstring') throw new Error(WSTRING);
    const size = PRIMITIVE_SIZE[f.type];
    if (size === undefined)
      throw new Error(
        `Unrecognized primitive ${f.isArray === true ? 'array ' : ''}type ${f.type}${f.isArray === true ? '[]' : ''}`,
      );
    if (f.isArray !== true) return this.#scalar(f, r);
    const n = f.arrayLength ?? r.sequenceLength();
    const typed = TYPED[f.type];
    this.#admit(f, n, size, typed === undefined, r, b);
    let out: unknown;
    if (typed !== undefined) out = typed(r, n);
    else out = Array.from({ length: n }, () => this.#scalar(f, r));
    if (r.offset > r.byteLength) throw new Error(`field ${f.name}: ${n} elements run past the end of the message`);
    return out;
  }

  #scalar(f: MessageDefinitionField, r: CdrReader): unknown {
    switch (f.type) {
      case 'bool':
        return Boolean(r.int8());
      case 'int8':
        return r.int8();
      case 'uint8':
        return r.uint8();
      case 'int16':
        return r.int16();
      case 'uint16':
        return r.uint16();
      case 'int32':
        return r.int32();
      case 'uint32':
        return r.uint32();
      case 'int64':
        return r.int64();
      case 'uint64':
        return r.uint64();
      case 'float32':
        return r.float32();
      case 'float64':
        return r.float64();
      case 'string': {
        const n = r.uint32(),
          left = r.byteLength - r.offset;
        if (n > left) throw new Error(`field ${f.name}: a string of ${n} bytes; the message has ${left} left`);
        return r.string(n);
      }
      default:
        return { sec: r.int32(), nanosec: r.uint32() };
    }
  }
}

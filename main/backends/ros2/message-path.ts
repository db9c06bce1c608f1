/**
 * Reading named fields out of ROS messages and building goals and requests from tool arguments,
 * as a backend configuration maps them. Pure: messages are the plain objects rclnodejs delivers
 * (numeric arrays possibly typed arrays).
 */
import { WitnessError } from '../../contract/errors.js';
import type { FieldSpec, FieldType, ValueSource } from './config.js';
import { fieldType } from './config.js';

interface Segment {
  readonly key: string;
  readonly index?: number;
  /** `position[name=finger]`: the element at the index of "finger" in the sibling array `name`. */
  readonly match?: { readonly key: string; readonly value: string };
}

const SEGMENT = /^([A-Za-z_][A-Za-z0-9_]*)(?:\[(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)=([^\]]+))\])?$/;
const parsed = new Map<string, readonly Segment[]>();

/** The segments of a message path (the configuration schema has checked its syntax). */
export function parsePath(path: string): readonly Segment[] {
  let segs = parsed.get(path);
  if (segs !== undefined) return segs;
  segs = path.split('.').map((s) => {
    const m = SEGMENT.exec(s);
    if (m === null) throw new Error(`not a message path segment: "${s}" in "${path}"`);
    if (m[2] !== undefined) return { key: m[1]!, index: Number(m[2]) };
    if (m[3] !== undefined) return { key: m[1]!, match: { key: m[3], value: m[4]! } };
    return { key: m[1]! };
  });
  parsed.set(path, segs);
  return segs;
}

function isIndexable(v: unknown): v is ArrayLike<unknown> {
  return Array.isArray(v) || ArrayBuffer.isView(v);
}

export type Read = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly why: string };

/** The value at a path, or why there is none (a missing field, an index past the end, a name not listed). */
export function readPath(message: unknown, path: string): Read {
  let v: unknown = message;
  let at = '';
  for (const s of parsePath(path)) {
    const parent = v;
    if (parent === null || typeof parent !== 'object')
      return { ok: false, why: `${at || 'the message'} is not a message` };
    v = (parent as Record<string, unknown>)[s.key];
    at = at ? `${at}.${s.key}` : s.key;
    if (v === undefined) return { ok: false, why: `no field "${at}"` };
    if (s.index !== undefined || s.match !== undefined) {
      if (!isIndexable(v)) return { ok: false, why: `"${at}" is not an array` };
      let i = s.index;
      if (s.match !== undefined) {
        const names = (parent as Record<string, unknown>)[s.match.key];
        if (!isIndexable(names)) return { ok: false, why: `no array "${s.match.key}" beside "${at}"` };
        i = Array.from(names).indexOf(s.match.value);
        if (i < 0)
          return {
            ok: false,
            why: `"${s.match.value}" is not in ${s.match.key} (${Array.from(names).slice(0, 12).join(', ')})`,
          };
      }
      if (i! >= v.length) return { ok: false, why: `${at}[${i}] is past its end (${v.length} elements)` };
      v = v[i!];
      at = `${at}[${i}]`;
    }
  }
  return { ok: true, value: v };
}

/** A named field's value from a message: typed, scaled and offset as configured. */
export function readField(
  message: unknown,
  spec: FieldSpec,
): { ok: true; value: number | string | boolean } | { ok: false; why: string } {
  const r = readPath(message, spec.path);
  if (!r.ok) return r;
  const want: FieldType = fieldType(spec);
  let v = r.value;
  if (typeof v === 'bigint') v = Number(v);
  if (want === 'number') {
    if (typeof v === 'boolean') v = v ? 1 : 0;
    if (typeof v !== 'number') return { ok: false, why: `${spec.path} is a ${typeof v}, not a number` };
    return { ok: true, value: v * (spec.scale ?? 1) + (spec.offset ?? 0) };
  }
  if (want === 'bool') {
    if (typeof v === 'number') return { ok: true, value: v !== 0 };
    if (typeof v !== 'boolean') return { ok: false, why: `${spec.path} is a ${typeof v}, not a boolean` };
    return { ok: true, value: v };
  }
  if (typeof v !== 'string') return { ok: false, why: `${spec.path} is a ${typeof v}, not a string` };
  return { ok: true, value: v };
}

/** Sets a dotted path in a nested plain object, creating the objects on the way. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let o = target;
  for (const k of keys.slice(0, -1)) {
    const next = o[k];
    if (next === null || typeof next !== 'object') o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  o[keys[keys.length - 1]!] = value;
}

/** geometry_msgs/msg/Quaternion of a rotation by yaw (radians) about z. */
export function quaternionFromYaw(yaw: number): { x: number; y: number; z: number; w: number } {
  return { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) };
}

/** Why a goal or request could not be built from the arguments (the caller turns it into a WorldError). */
export class MappingError extends WitnessError {
  constructor(message: string) {
    super('invalid-input', message);
  }
}

/** A goal or request message from a tool call's arguments, as the mapping says. */
export function buildMessage(mapping: Readonly<Record<string, ValueSource>>, args: unknown): Record<string, unknown> {
  if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args)))
    throw new MappingError(`the arguments must be an object, got ${JSON.stringify(args)}`);
  const a = (args ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [path, src] of Object.entries(mapping)) {
    if ('value' in src) {
      setPath(out, path, structuredClone(src.value));
    } else if (src.yaw_to_quaternion !== undefined) {
      const yaw = a[src.yaw_to_quaternion] ?? 0;
      if (typeof yaw !== 'number' || !Number.isFinite(yaw))
        throw new MappingError(
          `argument "${src.yaw_to_quaternion}" (for ${path}) must be a finite number of radians, got ${JSON.stringify(yaw)}`,
        );
      setPath(out, path, quaternionFromYaw(yaw));
    } else {
      // config.ts checked that a field has exactly one source: here it is an argument.
      let v = a[src.arg!];
      if (v === undefined) {
        if (!('default' in src)) throw new MappingError(`missing argument "${src.arg}" (for ${path})`);
        v = structuredClone(src.default);
      }
      if (src.scale !== undefined) {
        if (typeof v !== 'number' || !Number.isFinite(v))
          throw new MappingError(
            `argument "${src.arg}" (for ${path}) must be a finite number, got ${JSON.stringify(v)}`,
          );
        v = v * src.scale;
      }
      setPath(out, path, v);
    }
  }
  return out;
}

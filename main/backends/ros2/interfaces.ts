/**
 * The message definitions of the ROS 2 interfaces Witness knows — the common packages from
 * @foxglove/rosmsg-msgs-common and nav2_msgs, control_msgs and std_srvs (interface-definitions.ts) —
 * for Humble and Jazzy, and the check of a configured field path against them: a misspelled field
 * in a configuration fails when it is loaded, naming the field, where the type is one of these
 * (other types are checked when a goal, request or message is sent: rclnodejs validates it).
 */
import type { MessageDefinition, MessageDefinitionField } from '@foxglove/message-definition';
import { parse } from '@foxglove/rosmsg';
import { ros2humble, ros2jazzy } from '@foxglove/rosmsg-msgs-common';
import { INTERFACE_TEXTS } from './interface-definitions.js';
import { parsePath } from './message-path.js';

export type Distro = 'humble' | 'jazzy';
export const DISTROS: readonly Distro[] = ['humble', 'jazzy'];

/** Which message of an interface: a topic's, an action's goal, result or feedback, a service's request or response. */
export type Part = 'message' | 'goal' | 'result' | 'feedback' | 'request' | 'response';

const SECTIONS: Readonly<Record<string, readonly Part[]>> = {
  action: ['goal', 'result', 'feedback'],
  srv: ['request', 'response'],
  msg: ['message'],
};
const SUFFIX: Readonly<Record<Part, string>> = {
  message: '',
  goal: '_Goal',
  result: '_Result',
  feedback: '_Feedback',
  request: '_Request',
  response: '_Response',
};
/** builtin_interfaces/Time and Duration, which the definitions write as the primitives time and duration. */
const STAMP: readonly MessageDefinitionField[] = [
  { name: 'sec', type: 'int32' },
  { name: 'nanosec', type: 'uint32' },
];

/** `pkg/msg/Name` → `pkg/Name` (how field types and the common definitions name messages). */
function shortName(type: string): string {
  const [pkg, kind, name] = type.split('/');
  return name !== undefined && kind === 'msg' ? `${pkg}/${name}` : type;
}

/**
 * The name of a part of an interface: `nav2_msgs/action/NavigateToPose` goal → `nav2_msgs/action/NavigateToPose_Goal`.
 */
export function partName(type: string, part: Part): string {
  return part === 'message' ? shortName(type) : `${type}${SUFFIX[part]}`;
}

function build(common: Readonly<Record<string, MessageDefinition>>, distro: Distro): Map<string, MessageDefinition> {
  const m = new Map<string, MessageDefinition>(Object.entries(common));
  for (const [type, texts] of Object.entries(INTERFACE_TEXTS)) {
    const kind = type.split('/')[1]!;
    const parts = SECTIONS[kind]!;
    const sections = texts[distro].split(/^---[ \t]*$/m);
    parts.forEach((part, i) => {
      const name = partName(type, part);
      m.set(name, { name, definitions: parse(sections[i] ?? '', { ros2: true, skipTypeFixup: true })[0]!.definitions });
    });
  }
  return m;
}

const REGISTRY: Readonly<Record<Distro, Map<string, MessageDefinition>>> = {
  humble: build(ros2humble, 'humble'),
  jazzy: build(ros2jazzy, 'jazzy'),
};

/** The definition of a part of an interface on a distribution, or null when Witness does not know the type. */
export function definitionOf(distro: Distro, type: string, part: Part = 'message'): MessageDefinition | null {
  return REGISTRY[distro].get(partName(type, part)) ?? null;
}

/** The data fields of a complex field type (time and duration included), or null when unknown. */
export function fieldsOf(distro: Distro, fieldType: string): readonly MessageDefinitionField[] | null {
  if (fieldType === 'time' || fieldType === 'duration') return STAMP;
  const d = REGISTRY[distro].get(fieldType);
  return d === undefined ? null : d.definitions.filter((f) => f.isConstant !== true);
}

/** A definition and every definition it uses, the root first: what a CDR reader or writer needs. */
export function closure(distro: Distro, root: MessageDefinition): MessageDefinition[] {
  const out: MessageDefinition[] = [root];
  const seen = new Set<string>([root.name ?? '']);
  for (let i = 0; i < out.length; i++) {
    for (const f of out[i]!.definitions) {
      if (f.isComplex !== true || seen.has(f.type)) continue;
      seen.add(f.type);
      const d = REGISTRY[distro].get(f.type);
      if (d === undefined)
        throw new Error(`no definition of ${f.type} (used by ${out[i]!.name ?? 'the message'}) for ${distro}`);
      out.push(d);
    }
  }
  return out;
}

const isMessage = (f: MessageDefinitionField): boolean =>
  f.isComplex === true || f.type === 'time' || f.type === 'duration';
const typeWords = (f: MessageDefinitionField): string => `${f.type}${f.isArray === true ? '[]' : ''}`;

/**
 * Why a dotted field path (message-path.ts syntax) does not name a field of the message, or null
 * when it does. `leaf` says what the path must end on: a value (a number, string or bool), a
 * message, or anything.
 */
export function pathProblem(
  distro: Distro,
  root: MessageDefinition,
  path: string,
  leaf: 'value' | 'message' | 'any' = 'any',
): string | null {
  let fields: readonly MessageDefinitionField[] = root.definitions.filter((f) => f.isConstant !== true);
  let typeName = root.name ?? 'the message';
  let at = '';
  let last: MessageDefinitionField | null = null;
  for (const s of parsePath(path)) {
    if (last !== null) {
      if (!isMessage(last)) return `"${at}" is a ${typeWords(last)}, which has no field "${s.key}"`;
      const inner = fieldsOf(distro, last.type);
      if (inner === null) return null; // a type Witness does not know: rclnodejs checks it when sending
      fields = inner;
      typeName = last.type;
    }
    const f = fields.find((x) => x.name === s.key);
    if (f === undefined)
      return `${typeName} has no field "${s.key}"${at ? ` (in ${at})` : ''}; its fields are ${fields.map((x) => x.name).join(', ') || 'none'}`;
    const here = at ? `${at}.${s.key}` : s.key;
    if (s.index !== undefined || s.match !== undefined) {
      if (f.isArray !== true) return `"${here}" is a ${typeWords(f)}, not an array`;
      if (s.match !== undefined) {
        const names = fields.find((x) => x.name === s.match!.key);
        if (names === undefined || names.isArray !== true)
          return `"[${s.match.key}=…]" in "${here}" needs an array field "${s.match.key}" beside "${s.key}" in ${typeName}`;
      }
      last = { ...f, isArray: false };
    } else {
      last = f;
    }
    at = here;
  }
  if (last === null) return null;
  if (leaf === 'value' && (isMessage(last) || last.isArray === true))
    return `"${at}" is a ${typeWords(last)}, not a single value: name one of its fields`;
  if (leaf === 'message' && !isMessage(last)) return `"${at}" is a ${typeWords(last)}, not a message`;
  return null;
}

/** The type of the field a path ends on (as the definitions write it), or null when unknown. */
export function pathType(distro: Distro, root: MessageDefinition, path: string): string | null {
  let fields: readonly MessageDefinitionField[] | null = root.definitions;
  let last: MessageDefinitionField | undefined;
  for (const s of parsePath(path)) {
    if (last !== undefined) fields = fieldsOf(distro, last.type);
    last = fields?.find((x) => x.name === s.key && x.isConstant !== true);
    if (last === undefined) return null;
  }
  return last === undefined ? null : typeWords(last);
}

/**
 * Text from outside — an LLM's reply, an audit log's event bodies, a bag's topic names, a map's or a
 * tool file's fields, a robot's messages, an error quoting any of them — as it may be printed to a
 * terminal. Control characters are shown as escapes instead of being acted on, so such text cannot
 * clear the screen, move the cursor, overwrite a line (a carriage return, a backspace), start a new
 * line that looks like one of ours (`outcome: success`), or reorder what is shown (bidirectional
 * overrides and isolates).
 */

/**
 * C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidirectional marks, embeddings, overrides
 * and isolates.
 */
const unsafe = (c: number): boolean =>
  c < 0x20 ||
  (c >= 0x7f && c <= 0x9f) ||
  c === 0x061c ||
  c === 0x200e ||
  c === 0x200f ||
  c === 0x2028 ||
  c === 0x2029 ||
  (c >= 0x202a && c <= 0x202e) ||
  (c >= 0x2066 && c <= 0x2069);

const SHORT: Readonly<Record<number, string>> = {
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x08: '\\b',
  0x0c: '\\f',
  0x0b: '\\v',
  0x1b: '\\e',
};

const hex = (c: number, width: 2 | 4): string => c.toString(16).padStart(width, '0');

/**
 * `text` with every control character escaped: `\n`, `\r`, `\t`, `\b`, `\f`, `\v`, `\e` (ESC), `\xNN`
 * for the other C0 controls and DEL, `\uNNNN` for C1 controls, the line separators and the bidi
 * controls. Everything else, backslashes included, is left as it is. One line in, one line out.
 */
export function printable(text: string): string {
  let out = '',
    from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!unsafe(c)) continue;
    out += text.slice(from, i) + (SHORT[c] ?? (c < 0x80 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`));
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * Characters JSON.stringify leaves as they are that a terminal may still act on: DEL, C1 controls, separators, bidi
 * controls.
 */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON.stringify for output that may reach a terminal: what JSON.stringify leaves raw and a terminal
 * may act on is written as a `\uNNNN` escape (the same JSON value; C0 controls JSON escapes itself).
 */
export function printableJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(
    UNSAFE_IN_JSON,
    (c) => `\\u${hex(c.charCodeAt(0), 4)}`,
  );
}

/**
 * How deep brackets nest in a text, without parsing it: the guard that runs before a recursive
 * parser (JSON's locating parser, CEL's) could overflow the stack on hostile input.
 */

export interface Brackets {
  /** Characters that open a level, and (in any order) those that close one. */
  readonly open: string;
  readonly close: string;
  /** String delimiters: brackets between them are text; a backslash escapes the next character. */
  readonly quotes: string;
}

const OPEN = 1,
  CLOSE = 2,
  QUOTE = 3,
  BACKSLASH = 0x5c;

/**
 * Where the nesting of `text` first exceeds `max` (an offset), or -1. One pass over char codes (texts may be 64 MB).
 */
export function nestingBeyond(text: string, max: number, b: Brackets): number {
  const kind = new Uint8Array(128);
  for (const c of b.open) kind[c.charCodeAt(0)] = OPEN;
  for (const c of b.close) kind[c.charCodeAt(0)] = CLOSE;
  for (const c of b.quotes) kind[c.charCodeAt(0)] = QUOTE;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const k = c < 128 ? kind[c] : 0;
    if (k === QUOTE) {
      for (i++; i < text.length && text.charCodeAt(i) !== c; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
    } else if (k === OPEN) {
      if (++depth > max) return i;
    } else if (k === CLOSE) depth--;
  }
  return -1;
}

/**
 * What makes an operator's reason (an E-STOP reset, an escalation decision) say something: at least
 * a few visible characters — letters, digits, punctuation or symbols. Whitespace, zero-width and
 * other format characters, and the letters and symbols that draw nothing, do not count, and control
 * characters (other than tab and line breaks) and bidirectional overrides are refused outright: a
 * reason is evidence, read later in a terminal or a table, and must show what was typed. Shared by
 * the API (which refuses) and the UI (which keeps its button disabled until the reason would be
 * accepted).
 */

/** Fewest visible characters a reason must have. */
const MIN_REASON_VISIBLE = 3;

const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/gu;
/** Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern): not visible. */
const BLANK = /[\u115f\u1160\u3164\uffa0\u2800]/gu;
// C0 and C1 controls except tab, line feed and carriage return; DEL.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;
/** Characters that reorder what follows them on screen (embeddings, overrides, isolates). */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;

/** Why `text` is not a reason an operator could have meant, or null when it is one. */
export function reasonProblem(text: string): string | null {
  if (CONTROL.test(text)) return 'contains control characters; type the reason as plain text';
  if (BIDI.test(text))
    return 'contains bidirectional override characters, which would show it in another order than it was typed';
  const visible = (text.match(VISIBLE)?.length ?? 0) - (text.match(BLANK)?.length ?? 0);
  if (visible === 0) return 'is empty: say what was checked (it is recorded in the audit log)';
  if (visible < MIN_REASON_VISIBLE)
    return `says too little (${visible} visible character${visible === 1 ? '' : 's'}; at least ${MIN_REASON_VISIBLE}): say what was checked`;
  return null;
}

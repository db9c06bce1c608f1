/**
 * Offsets in a text to the 1-based line and column ranges editors show. Lines end at '\n' only,
 * like the LTL parser's positions and jsonc-parser's offsets; columns count UTF-16 code units,
 * like Monaco's.
 */
import type { Diagnostic } from '../../contract/api.js';

export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  /** 1-based line and column of an offset (clamped into the text). */
  position(offset: number): { line: number; column: number } {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0,
      hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: o - this.starts[lo]! + 1 };
  }

  /** A diagnostic over [start, end) (end exclusive, as the contract's ranges are). */
  diagnostic(
    start: number,
    end: number,
    severity: Diagnostic['severity'],
    message: string,
    source: Diagnostic['source'],
  ): Diagnostic {
    const a = this.position(start),
      b = this.position(Math.max(start, end));
    return {
      severity,
      message,
      startLine: a.line,
      startColumn: a.column,
      endLine: b.line,
      endColumn: b.column,
      source,
    };
  }

  /** The whole text (at least one character wide where there is one). */
  everything(severity: Diagnostic['severity'], message: string, source: Diagnostic['source']): Diagnostic {
    return this.diagnostic(0, this.text.length, severity, message, source);
  }
}

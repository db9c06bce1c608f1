/**
 * Checks open documents through the API a moment after typing stops: LTL specifications with the
 * app's LTL engine, tool files against the world's vocabulary (Monaco's JSON worker covers syntax
 * and the tool schema), rules files as a run registers them (their schema, fields, propositions and rules, against
 * the world and a tool folder). Results become markers under the owner 'witness'; a reply that arrives
 * after a newer edit or world change is dropped.
 */
import type { Diagnostic, LtlCheckResult, WitnessApi } from '../../../main/contract/api.js';
import { errorText } from '../api.js';
import type { Doc } from './documents.js';
import { monaco } from './monaco.js';

export const OWNER = 'witness';
const DELAY_MS = 300;

const SEVERITY: Record<Diagnostic['severity'], monaco.MarkerSeverity> = {
  error: monaco.MarkerSeverity.Error,
  warning: monaco.MarkerSeverity.Warning,
  info: monaco.MarkerSeverity.Info,
};

function toMarker(d: Diagnostic): monaco.editor.IMarkerData {
  return {
    severity: SEVERITY[d.severity],
    message: d.message,
    source: d.source ?? 'witness',
    startLineNumber: d.startLine,
    startColumn: d.startColumn,
    endLineNumber: d.endLine,
    endColumn: d.endColumn,
  };
}

export class Checks {
  private readonly timers = new Map<Doc, ReturnType<typeof setTimeout>>();
  private readonly issued = new Map<Doc, number>();
  private readonly ltl = new Map<Doc, { versionId: number; result: LtlCheckResult }>();
  /** The tool folder each rules file was last checked against. */
  private readonly rulesTools = new Map<Doc, string>();
  private seq = 0;

  constructor(
    private readonly api: WitnessApi,
    /** The world a document is checked against. */
    private readonly worldFor: (doc: Doc) => string,
    /** After each applied check (status lines, hover). */
    private readonly done: (doc: Doc) => void,
    private readonly failed: (doc: Doc, message: string) => void,
  ) {}

  schedule(doc: Doc, delay = DELAY_MS): void {
    if (doc.kind !== 'ltl' && doc.kind !== 'tool' && doc.kind !== 'rules') return;
    clearTimeout(this.timers.get(doc));
    this.timers.set(
      doc,
      setTimeout(() => void this.run(doc), delay),
    );
  }

  /** The latest LTL check of a model, and whether it is of the current text. */
  lastLtl(model: monaco.editor.ITextModel): { result: LtlCheckResult; current: boolean } | null {
    for (const [doc, r] of this.ltl) {
      if (doc.model === model) return { result: r.result, current: r.versionId === model.getVersionId() };
    }
    return null;
  }

  /** The tool folder a rules file was last checked against, or null before its first check. */
  rulesToolsOf(doc: Doc): string | null {
    return this.rulesTools.get(doc) ?? null;
  }

  forget(doc: Doc): void {
    this.rulesTools.delete(doc);
    clearTimeout(this.timers.get(doc));
    this.timers.delete(doc);
    this.issued.delete(doc);
    this.ltl.delete(doc);
  }

  private async run(doc: Doc): Promise<void> {
    this.timers.delete(doc);
    if (doc.model.isDisposed()) return;
    const id = ++this.seq;
    this.issued.set(doc, id);
    const versionId = doc.model.getVersionId();
    const text = doc.model.getValue();
    const world = this.worldFor(doc);
    const fresh = (): boolean =>
      this.issued.get(doc) === id && !doc.model.isDisposed() && doc.model.getVersionId() === versionId;
    try {
      let diagnostics: Diagnostic[];
      if (doc.kind === 'ltl') {
        const result = await this.api.ltlCheck({ text, world });
        if (!fresh()) return;
        this.ltl.set(doc, { versionId, result });
        diagnostics = result.diagnostics;
      } else if (doc.kind === 'rules') {
        const result = await this.api.rulesCheck({ text, world });
        if (!fresh()) return;
        this.rulesTools.set(doc, result.tools);
        diagnostics = result.diagnostics;
      } else {
        const result = await this.api.toolCheck({ text, world });
        if (!fresh()) return;
        diagnostics = result.diagnostics.filter((d) => d.source === 'vocabulary');
      }
      monaco.editor.setModelMarkers(doc.model, OWNER, diagnostics.map(toMarker));
      this.done(doc);
    } catch (e) {
      if (fresh()) this.failed(doc, errorText(e));
    }
  }
}

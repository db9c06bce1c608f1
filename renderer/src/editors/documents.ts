/**
 * The open documents: one Monaco model per workspace file, kept while the user switches between
 * files so unsaved edits live on; dirty while the model differs from what was last read or saved;
 * saves carry the version they are based on, so a file changed on disk is never overwritten
 * without the user choosing to.
 */
import type { WitnessApi } from '../../../main/contract/api.js';
import { monaco } from './monaco.js';
import { LTL } from './ltl-language.js';

type DocKind = 'ltl' | 'tool' | 'rules' | 'json' | 'text';

export interface Doc {
  readonly path: string;
  readonly kind: DocKind;
  readonly model: monaco.editor.ITextModel;
  /** The content version on disk this model is based on (the API's SHA-256). */
  version: string;
  /** The model's alternative version id when it last matched the disk (undo back to it is clean). */
  savedAltId: number;
  viewState: monaco.editor.ICodeEditorViewState | null;
}

/** Tool-definition files: under a tools/ folder, named *.tool.json, or declaring the tool schema. */
function isToolFile(path: string, text: string): boolean {
  if (!path.endsWith('.json')) return false;
  return (
    /(^|\/)tools\//.test(path) || path.endsWith('.tool.json') || /"\$schema"\s*:\s*"[^"]*tool\.schema\.json"/.test(text)
  );
}

/** Rules files (temporal rules over the tool loop): named *.rules.json, or declaring the rules schema. */
const isRulesFile = (path: string, text: string): boolean =>
  path.endsWith('.rules.json') || (path.endsWith('.json') && /"\$schema"\s*:\s*"[^"]*rules\.schema\.json"/.test(text));

function kindOf(path: string, text: string): DocKind {
  if (path.endsWith('.ltl')) return 'ltl';
  if (isRulesFile(path, text)) return 'rules';
  if (isToolFile(path, text)) return 'tool';
  return path.endsWith('.json') ? 'json' : 'text';
}

const LANGUAGE: Record<DocKind, string> = { ltl: LTL, tool: 'json', rules: 'json', json: 'json', text: 'plaintext' };

/** What a new file starts with. */
export function template(path: string): string {
  if (!isToolFile(path, '')) return '';
  const name =
    (path.split('/').pop() ?? 'tool')
      .replace(/\.(tool\.)?json$/, '')
      .replace(/[^a-z0-9_]/g, '_')
      .replace(/^[^a-z]+/, '') || 'tool';
  return `${JSON.stringify(
    {
      name,
      description: 'What the tool does.',
      skill: 'move',
      arguments: { type: 'object', properties: {}, additionalProperties: false },
      preconditions: [],
      postconditions: [{ name: 'done', expr: 'gripper.holding == ""' }],
      timeout_s: 10,
      failures: [],
    },
    null,
    2,
  )}\n`;
}

const modelUri = (path: string): monaco.Uri => monaco.Uri.from({ scheme: 'file', path: `/workspace/${path}` });

export class Documents {
  private readonly docs = new Map<string, Doc>();
  /** The save in flight per document: a second Ctrl+S waits for it and then uses the version it wrote. */
  private readonly saving = new Map<Doc, Promise<unknown>>();

  constructor(
    private readonly api: WitnessApi,
    private readonly changed: (doc: Doc) => void,
  ) {}

  get(path: string): Doc | undefined {
    return this.docs.get(path);
  }

  all(): Doc[] {
    return [...this.docs.values()];
  }

  byModel(model: monaco.editor.ITextModel): Doc | undefined {
    return this.all().find((d) => d.model === model);
  }

  isDirty(doc: Doc): boolean {
    return !doc.model.isDisposed() && doc.model.getAlternativeVersionId() !== doc.savedAltId;
  }

  anyDirty(): boolean {
    return this.all().some((d) => this.isDirty(d));
  }

  /** Opens a workspace file (or returns it, unsaved edits and all, when it is open already). */
  async open(path: string): Promise<Doc> {
    const open = this.docs.get(path);
    if (open !== undefined) return open;
    const { text, version } = await this.api.workspaceRead({ path });
    return this.adopt(path, text, version);
  }

  /** A document for text that is on disk at `version`. */
  adopt(path: string, text: string, version: string): Doc {
    const existing = this.docs.get(path);
    if (existing !== undefined) return existing;
    const uri = modelUri(path);
    monaco.editor.getModel(uri)?.dispose();
    const kind = kindOf(path, text);
    const model = monaco.editor.createModel(text, LANGUAGE[kind], uri);
    const doc: Doc = { path, kind, model, version, savedAltId: model.getAlternativeVersionId(), viewState: null };
    this.docs.set(path, doc);
    model.onDidChangeContent(() => this.changed(doc));
    return doc;
  }

  /**
   * Saves the model's text over the disk version the document is based on, or over whatever is on
   * disk when the user chose to overwrite. Rejects with the API's 'conflict' error when the disk
   * moved on.
   */
  async save(doc: Doc, overwrite = false): Promise<void> {
    const previous = this.saving.get(doc);
    const run = (previous ?? Promise.resolve()).catch(() => {}).then(() => this.saveNow(doc, overwrite));
    this.saving.set(doc, run);
    try {
      await run;
    } finally {
      if (this.saving.get(doc) === run) this.saving.delete(doc);
    }
  }

  private async saveNow(doc: Doc, overwrite: boolean): Promise<void> {
    if (doc.model.isDisposed()) return;
    const text = doc.model.getValue();
    const altId = doc.model.getAlternativeVersionId();
    const { version } = await this.api.workspaceWrite(
      overwrite ? { path: doc.path, text } : { path: doc.path, text, baseVersion: doc.version },
    );
    doc.version = version;
    doc.savedAltId = altId;
    this.changed(doc);
  }

  /** Replaces the model's text with the disk's (the user chose to drop their edits). */
  async reload(doc: Doc): Promise<void> {
    const { text, version } = await this.api.workspaceRead({ path: doc.path });
    doc.model.pushEditOperations([], [{ range: doc.model.getFullModelRange(), text }], () => null);
    doc.version = version;
    doc.savedAltId = doc.model.getAlternativeVersionId();
    this.changed(doc);
  }

  /**
   * Follows the disk when the document has no unsaved edits: resolves to whether the text changed.
   * Edits made while the file was being read win (the document is left alone).
   */
  async refresh(doc: Doc): Promise<boolean> {
    const altId = doc.model.getAlternativeVersionId();
    const { text, version } = await this.api.workspaceRead({ path: doc.path });
    if (
      version === doc.version ||
      doc.model.isDisposed() ||
      doc.model.getAlternativeVersionId() !== altId ||
      this.isDirty(doc)
    )
      return false;
    doc.model.pushEditOperations([], [{ range: doc.model.getFullModelRange(), text }], () => null);
    doc.version = version;
    doc.savedAltId = doc.model.getAlternativeVersionId();
    this.changed(doc);
    return true;
  }

  close(doc: Doc): void {
    this.docs.delete(doc.path);
    doc.model.dispose();
  }
}

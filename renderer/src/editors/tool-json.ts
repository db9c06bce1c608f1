/**
 * Tool-definition files in Monaco's JSON mode: validated against the tool JSON Schema (fetched
 * from the app, so it is the one registration uses) by Monaco's JSON worker, with completion of the
 * world's fields and objects inside CEL conditions ("expr" and "when" strings).
 *
 * The JSON worker prefers a document's own "$schema" to any association and would try to download
 * it; the app's files point at docs/schemas/*.json by relative path. So the tool schema is also
 * registered under the address each tool file's "$schema" resolves to, and any other "$schema" a
 * JSON file names resolves to an empty schema instead of a failed download.
 */
import type { Vocabulary } from '../../../main/contract/api.js';
import type { Doc } from './documents.js';
import { jsonDefaults, monaco } from './monaco.js';

const TOOL_SCHEMA_URI = 'https://witness.invalid/schemas/tool.schema.json';

/** The "$schema" a JSON text names, resolved against its model's address as the worker does. */
function declaredSchema(model: monaco.editor.ITextModel): string | null {
  const m = /"\$schema"\s*:\s*"([^"\\]*)"/.exec(model.getValue());
  if (m === null) return null;
  const ref = m[1]!;
  if (/^\w[\w\d+.-]*:/.test(ref)) return ref;
  try {
    return decodeURI(new URL(ref, model.uri.toString(true)).href);
  } catch {
    return null;
  }
}

export class ToolSchemas {
  private schema: Record<string, unknown> | null = null;
  private readonly tools = new Set<Doc>();
  private readonly others = new Set<Doc>();
  private applied = '';

  setSchema(schema: Record<string, unknown>): void {
    this.schema = schema;
    this.apply();
  }

  /** Follows a JSON document (its kind and "$schema" may change as it is edited). */
  track(doc: Doc): void {
    if (doc.kind === 'tool') this.tools.add(doc);
    else if (doc.kind === 'json' || doc.kind === 'rules') this.others.add(doc);
    else return;
    this.apply();
  }

  untrack(doc: Doc): void {
    if (this.tools.delete(doc) || this.others.delete(doc)) this.apply();
  }

  /** Re-reads "$schema" declarations after an edit; reconfigures the worker only when they changed. */
  apply(): void {
    const live = (d: Doc): boolean => !d.model.isDisposed();
    const toolUris = [...this.tools].filter(live).map((d) => d.model.uri.toString(true));
    const toolRefs = new Set(
      [...this.tools]
        .filter(live)
        .map((d) => declaredSchema(d.model))
        .filter((u): u is string => u !== null && u !== TOOL_SCHEMA_URI),
    );
    const otherRefs = new Set(
      [...this.others]
        .filter(live)
        .map((d) => declaredSchema(d.model))
        .filter((u): u is string => u !== null && !toolRefs.has(u) && u !== TOOL_SCHEMA_URI),
    );
    const schemas: { uri: string; fileMatch?: string[]; schema: object }[] = [];
    if (this.schema !== null) {
      schemas.push({ uri: TOOL_SCHEMA_URI, fileMatch: toolUris, schema: this.schema });
      for (const uri of toolRefs) schemas.push({ uri, schema: this.schema });
    }
    for (const uri of otherRefs) schemas.push({ uri, schema: {} });
    const key = JSON.stringify([toolUris, [...toolRefs], [...otherRefs], this.schema !== null]);
    if (key === this.applied) return;
    this.applied = key;
    jsonDefaults.setDiagnosticsOptions({
      validate: true,
      allowComments: false,
      trailingCommas: 'error',
      comments: 'error',
      enableSchemaRequest: false,
      schemaRequest: 'ignore',
      schemaValidation: 'error',
      schemas,
    });
  }
}

let completionRegistered = false;

/** Completion of field and object names inside a tool file's CEL conditions. */
export function registerCelCompletion(
  isTool: (model: monaco.editor.ITextModel) => boolean,
  vocabulary: () => Vocabulary | null,
): void {
  if (completionRegistered) return;
  completionRegistered = true;
  monaco.languages.registerCompletionItemProvider('json', {
    triggerCharacters: ['.'],
    provideCompletionItems(model, position) {
      if (!isTool(model)) return { suggestions: [] };
      const before = model.getLineContent(position.lineNumber).slice(0, position.column - 1);
      if (!/"(?:expr|when)"\s*:\s*"(?:[^"\\]|\\.)*$/.test(before)) return { suggestions: [] };
      const v = vocabulary();
      if (v === null) return { suggestions: [] };
      const typed = /[A-Za-z0-9_.]*$/.exec(before)![0];
      const range = new monaco.Range(
        position.lineNumber,
        position.column - typed.length,
        position.lineNumber,
        position.column,
      );
      return {
        suggestions: v.fields.map((f) => ({
          label: f.name,
          kind: monaco.languages.CompletionItemKind.Field,
          detail: `${f.type} (${v.world})`,
          insertText: f.name,
          range,
        })),
      };
    },
  });
}

/**
 * The problems of the file in the editor: every marker (the app's checks and Monaco's JSON
 * validator), most severe first within each line, each with its exact range; a click goes there.
 */
import { el } from '../app.js';
import { OWNER } from './checks.js';
import { monaco } from './monaco.js';

const OWNERS = new Set([OWNER, 'json']);
const LABEL: Partial<Record<monaco.MarkerSeverity, string>> = {
  [monaco.MarkerSeverity.Error]: 'error',
  [monaco.MarkerSeverity.Warning]: 'warning',
  [monaco.MarkerSeverity.Info]: 'info',
};

export class ProblemsList {
  readonly element: HTMLElement;
  private readonly count = el('span', { class: 'count' });
  private readonly list = el('ul', { id: 'editors-problems', 'aria-label': 'Problems' });
  private model: monaco.editor.ITextModel | null = null;

  constructor(private readonly go: (m: monaco.editor.IMarker) => void) {
    this.element = el('section', { class: 'editors-problems' }, el('h4', {}, 'Problems ', this.count), this.list);
    monaco.editor.onDidChangeMarkers((uris) => {
      if (this.model !== null && uris.some((u) => u.toString() === this.model!.uri.toString())) this.render();
    });
  }

  show(model: monaco.editor.ITextModel | null): void {
    this.model = model;
    this.render();
  }

  private render(): void {
    const m = this.model;
    const markers =
      m === null || m.isDisposed()
        ? []
        : monaco.editor
            .getModelMarkers({ resource: m.uri })
            .filter((x) => OWNERS.has(x.owner))
            .sort(
              (a, b) =>
                a.startLineNumber - b.startLineNumber || a.startColumn - b.startColumn || b.severity - a.severity,
            );
    this.count.textContent = `(${markers.length})`;
    this.list.replaceChildren(
      ...markers.map((x) => {
        const severity = LABEL[x.severity] ?? 'hint';
        const item = el(
          'li',
          {
            class: `problem ${severity}`,
            tabindex: '0',
            'data-severity': severity,
            'data-owner': x.owner,
            'data-start-line': String(x.startLineNumber),
            'data-start-column': String(x.startColumn),
            'data-end-line': String(x.endLineNumber),
            'data-end-column': String(x.endColumn),
          },
          el('span', { class: 'where' }, `Ln ${x.startLineNumber}, Col ${x.startColumn}`),
          el('span', { class: 'message' }, x.message),
          el('span', { class: 'source' }, x.owner === 'json' ? 'json' : (x.source ?? '')),
        );
        const pick = (): void => this.go(x);
        item.addEventListener('click', pick);
        item.addEventListener('keydown', (e) => {
          if (e.key === 'Enter') pick();
        });
        return item;
      }),
    );
    if (markers.length === 0) this.list.append(el('li', { class: 'none' }, m === null ? '' : 'No problems.'));
  }
}

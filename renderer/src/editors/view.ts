/**
 * The Editors view: the workspace's files, Monaco tabs for LTL specifications and tool files
 * checked live against the chosen world, a problems list, Save (Ctrl/Cmd+S) that never overwrites
 * a file changed on disk without asking, and "Use in mission" for specifications.
 */
import type { LtlPatternTemplate } from '../../../main/contract/api.js';
import { type App, el } from '../app.js';
import { ApiCallError, errorText } from '../api.js';
import { Checks } from './checks.js';
import { askPath, choose, pathProblem } from './dialogs.js';
import { type Doc, Documents, template } from './documents.js';
import { FileList } from './files.js';
import { registerLtl } from './ltl-language.js';
import { monaco } from './monaco.js';
import { ProblemsList } from './problems.js';
import { ToolSchemas, registerCelCompletion } from './tool-json.js';
import { type Slot, Worlds } from './worlds.js';
import './editors.css';

export class EditorsView {
  private readonly docs: Documents;
  private readonly checks: Checks;
  private readonly schemas = new ToolSchemas();
  private readonly editor: monaco.editor.IStandaloneCodeEditor;
  private readonly fileList: FileList;
  private readonly problems: ProblemsList;
  private readonly tabs = el('div', { class: 'editors-tabs', role: 'tablist' });
  private readonly worlds: Worlds;
  private readonly saveButton = el('button', { type: 'button', id: 'editors-save', title: 'Save (Ctrl+S)' }, 'Save');
  private readonly reloadButton = el(
    'button',
    { type: 'button', id: 'editors-reload', title: 'Read the file from disk again' },
    'Reload',
  );
  private readonly useButton = el(
    'button',
    { type: 'button', id: 'editors-use', title: 'Give this specification to the mission console' },
    'Use in mission',
  );
  private readonly status = el('div', { class: 'editors-status', id: 'editors-status', 'aria-live': 'polite' });
  private readonly empty = el(
    'div',
    { class: 'editors-empty' },
    'Open a file from the workspace, or create one with New file.',
  );
  private readonly order: Doc[] = [];
  private readonly wasDirty = new Map<Doc, boolean>();
  private active: Doc | null = null;
  /** The specification patterns, offered as completion snippets in .ltl files (empty until loaded). */
  private patterns: readonly LtlPatternTemplate[] = [];

  constructor(
    root: HTMLElement,
    private readonly app: App,
  ) {
    this.docs = new Documents(app.api, (doc) => this.changed(doc));
    this.worlds = new Worlds(
      app.api,
      (text, kind) => app.notify(text, kind),
      () => {
        if (this.active !== null) this.renderStatus();
      },
    );
    this.checks = new Checks(
      app.api,
      (doc) => this.worlds.get(slotOf(doc)),
      (doc) => {
        if (doc === this.active) this.renderStatus();
      },
      (doc, message) => app.notify(`Checking ${doc.path} failed: ${message}`, 'error'),
    );
    registerLtl({
      vocabulary: () => this.worlds.vocabulary('spec'),
      lastCheck: (model) => this.checks.lastLtl(model),
      patterns: () => this.patterns,
    });
    registerCelCompletion(
      (model) => this.docs.byModel(model)?.kind === 'tool',
      () => this.worlds.vocabulary('tool'),
    );

    this.fileList = new FileList(
      (p) => void this.openFile(p),
      () => void this.newFile(),
      () => void this.refreshFiles(),
    );
    this.problems = new ProblemsList((m) => {
      this.editor.setSelection(new monaco.Range(m.startLineNumber, m.startColumn, m.endLineNumber, m.endColumn));
      this.editor.revealRangeInCenter(new monaco.Range(m.startLineNumber, m.startColumn, m.endLineNumber, m.endColumn));
      this.editor.focus();
    });
    const host = el('div', { class: 'editors-host', id: 'editors-host' });
    const bar = el(
      'div',
      { class: 'editors-bar' },
      this.tabs,
      el('span', { class: 'spacer' }),
      // The world and the buttons wrap together, under the tabs, when a narrow window cannot hold both.
      el(
        'span',
        { class: 'editors-tools' },
        el('label', { for: 'editors-world' }, 'World '),
        this.worlds.select,
        this.reloadButton,
        this.useButton,
        this.saveButton,
      ),
    );
    root.append(
      el(
        'div',
        { class: 'editors' },
        this.fileList.element,
        el(
          'div',
          { class: 'editors-main' },
          bar,
          el('div', { class: 'editors-stage' }, host, this.empty),
          this.status,
          this.problems.element,
        ),
      ),
    );

    this.editor = monaco.editor.create(host, {
      model: null,
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      theme: 'witness',
      fixedOverflowWidgets: true,
      scrollBeyondLastLine: false,
      renderValidationDecorations: 'on',
      quickSuggestions: { other: true, comments: false, strings: true },
    });
    this.editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => void this.save());
    root.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's' && !this.editor.hasTextFocus()) {
        e.preventDefault();
        void this.save();
      }
    });
    this.saveButton.addEventListener('click', () => void this.save());
    this.reloadButton.addEventListener('click', () => void this.reload());
    this.useButton.addEventListener('click', () => this.useInMission());
    this.worlds.select.addEventListener('change', () => this.chooseWorld(this.worlds.select.value));
    window.addEventListener('focus', () => {
      if (root.offsetParent !== null) void this.syncFromDisk();
    });

    app.api.ltlPatterns().then(
      (r) => (this.patterns = r.patterns),
      (e: unknown) => app.notify(`Specification patterns unavailable: ${errorText(e)}`, 'error'),
    );
    app.api.toolSchema().then(
      (s) => this.schemas.setSchema(s),
      (e: unknown) => app.notify(`Tool schema unavailable: ${errorText(e)}`, 'error'),
    );
    void this.worlds.list().then(() => this.renderToolbar());
    void this.refreshFiles();
    this.renderAll();
  }

  dirty(): boolean {
    return this.docs.anyDirty();
  }

  shown(): void {
    this.editor.layout();
    void this.refreshFiles();
    void this.syncFromDisk();
  }

  /** Files without unsaved edits follow the disk; files with edits are left to the conflict check on save. */
  async syncFromDisk(): Promise<void> {
    for (const doc of [...this.order]) {
      if (this.docs.isDirty(doc)) continue;
      try {
        if (await this.docs.refresh(doc)) this.app.notify(`${doc.path} changed on disk: reloaded`);
      } catch {
        // Gone or unreadable: the user finds out on save, with the file's edits still in the editor.
      }
    }
  }

  private chooseWorld(world: string): void {
    if (this.active === null || !isChecked(this.active)) return;
    const slot = slotOf(this.active);
    this.worlds.set(slot, world);
    for (const d of this.order) if (isChecked(d) && slotOf(d) === slot) this.checks.schedule(d, 0);
    this.renderStatus();
  }

  async refreshFiles(): Promise<void> {
    try {
      const { root, files, truncated } = await this.app.api.workspaceList();
      this.fileList.render(root, files, truncated === true);
      this.markFiles();
    } catch (e) {
      this.app.notify(`Cannot list the workspace: ${errorText(e)}`, 'error');
    }
  }

  private markFiles(): void {
    this.fileList.mark(
      this.active?.path ?? null,
      new Set(this.order.filter((d) => this.docs.isDirty(d)).map((d) => d.path)),
    );
  }

  private async openFile(path: string): Promise<void> {
    try {
      const known = this.docs.get(path) !== undefined;
      const doc = await this.docs.open(path);
      if (!known) this.adopted(doc);
      this.activate(doc);
    } catch (e) {
      this.app.notify(`Cannot open ${path}: ${errorText(e)}`, 'error');
    }
  }

  /** A document just opened: follow its schema, check it. */
  private adopted(doc: Doc): void {
    this.order.push(doc);
    this.schemas.track(doc);
    this.checks.schedule(doc, 0);
  }

  private activate(doc: Doc | null): void {
    if (this.active !== null && !this.active.model.isDisposed()) this.active.viewState = this.editor.saveViewState();
    this.active = doc;
    this.editor.setModel(doc?.model ?? null);
    if (doc?.viewState) this.editor.restoreViewState(doc.viewState);
    if (doc !== null) this.editor.focus();
    this.problems.show(doc?.model ?? null);
    this.renderAll();
  }

  private changed(doc: Doc): void {
    this.checks.schedule(doc);
    if (doc.kind === 'tool' || doc.kind === 'json' || doc.kind === 'rules') this.schemas.apply();
    const dirty = this.docs.isDirty(doc);
    if (this.wasDirty.get(doc) !== dirty) {
      this.wasDirty.set(doc, dirty);
      this.renderTabs();
      this.markFiles();
      this.renderToolbar();
    }
  }

  private renderAll(): void {
    this.renderTabs();
    this.markFiles();
    this.renderToolbar();
    this.renderStatus();
  }

  private renderTabs(): void {
    const base = (p: string): string => p.split('/').pop()!;
    const label = (d: Doc): string =>
      this.order.some((o) => o !== d && base(o.path) === base(d.path)) ? d.path : base(d.path);
    this.tabs.replaceChildren(
      ...this.order.map((d) => {
        const close = el(
          'button',
          { type: 'button', class: 'close', title: `Close ${d.path}`, 'aria-label': `Close ${d.path}` },
          '×',
        );
        close.addEventListener('click', (e) => {
          e.stopPropagation();
          void this.close(d);
        });
        const tab = el(
          'div',
          {
            class: 'editors-tab',
            role: 'tab',
            tabindex: '0',
            'data-path': d.path,
            title: d.path,
            'aria-selected': String(d === this.active),
          },
          el('span', { class: 'name' }, label(d)),
          el('span', { class: 'dot', 'aria-label': 'unsaved' }, '●'),
          close,
        );
        tab.classList.toggle('dirty', this.docs.isDirty(d));
        tab.addEventListener('click', () => this.activate(d));
        tab.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') this.activate(d);
        });
        return tab;
      }),
    );
  }

  private renderToolbar(): void {
    const d = this.active;
    this.empty.hidden = d !== null;
    this.saveButton.disabled = d === null;
    this.reloadButton.disabled = d === null;
    this.useButton.hidden = d?.kind !== 'ltl';
    this.worlds.show(d !== null && isChecked(d) ? slotOf(d) : null);
    this.saveButton.classList.toggle('dirty', d !== null && this.docs.isDirty(d));
  }

  private renderStatus(): void {
    const d = this.active;
    if (d === null || !isChecked(d)) {
      this.status.textContent = d?.path ?? '';
      return;
    }
    const world = this.worlds.get(slotOf(d));
    const v = this.worlds.vocabulary(slotOf(d));
    if (d.kind === 'rules') {
      const tools = this.checks.rulesToolsOf(d);
      this.status.textContent = `${world}: rules checked as a run registers them, against the tools of ${tools ?? '…'}`;
      return;
    }
    if (d.kind === 'tool') {
      this.status.textContent =
        v === null
          ? `${world}: loading…`
          : `${world}: skills ${v.skills.join(', ') || 'none'} · ${v.fields.length} fields`;
      return;
    }
    const names =
      v === null
        ? 'loading…'
        : `${v.propositions.length} propositions (${v.propositions.map((p) => p.name).join(', ') || 'no regions file'})`;
    const check = this.checks.lastLtl(d.model);
    const a = check?.result.automaton;
    const automaton =
      check === null
        ? 'checking…'
        : a === undefined
          ? 'no automaton'
          : `automaton: ${a.states} states, ${a.edges} edges, ${a.accepting} accepting`;
    this.status.textContent = `${world}: ${names} · ${automaton}`;
  }

  private async save(doc: Doc | null = this.active): Promise<boolean> {
    if (doc === null) return false;
    try {
      await this.docs.save(doc);
      this.app.notify(`Saved ${doc.path}`);
      void this.refreshFiles();
      return true;
    } catch (e) {
      if (e instanceof ApiCallError && e.code === 'conflict') return this.resolveConflict(doc, e.message);
      this.app.notify(`Could not save ${doc.path}: ${errorText(e)}`, 'error');
      return false;
    }
  }

  /** The file changed on disk: the user decides; nothing is overwritten or dropped without asking. */
  private async resolveConflict(doc: Doc, reason: string): Promise<boolean> {
    const choice = await choose('The file changed on disk', `${reason}. Your edits are not saved yet.`, [
      { id: 'save-as', label: 'Save mine as…', primary: true },
      { id: 'overwrite', label: 'Overwrite' },
      { id: 'reload', label: 'Reload (drop my edits)' },
      { id: 'cancel', label: 'Cancel' },
    ]);
    try {
      if (choice === 'overwrite') {
        await this.docs.save(doc, true);
        this.app.notify(`Saved ${doc.path} over the version on disk`);
        void this.refreshFiles();
        return true;
      }
      if (choice === 'reload') {
        await this.docs.reload(doc);
        this.app.notify(`Reloaded ${doc.path} from disk`);
        return false;
      }
      if (choice === 'save-as') return await this.saveAs(doc);
    } catch (e) {
      this.app.notify(`${doc.path}: ${errorText(e)}`, 'error');
      return false;
    }
    this.app.notify(`${doc.path} is not saved`);
    return false;
  }

  private async saveAs(doc: Doc): Promise<boolean> {
    const suggestion = doc.path.replace(/(\.[^./]*)?$/, (ext) => `-mine${ext}`);
    const path = await askPath(
      'Save as',
      'Save your version under another name in the workspace.',
      suggestion,
      (p) => pathProblem(p) ?? (this.docs.get(p) !== undefined ? `${p} is open: choose another name` : null),
    );
    if (path === null) return false;
    const text = doc.model.getValue();
    try {
      const { version } = await this.app.api.workspaceWrite({ path, text, baseVersion: null });
      const copy = this.docs.adopt(path, text, version);
      this.adopted(copy);
      // Its edits now live in the new file; the old one stays as it is on disk.
      this.drop(doc);
      this.activate(copy);
      this.app.notify(`Saved as ${path}`);
      void this.refreshFiles();
      return true;
    } catch (e) {
      this.app.notify(
        e instanceof ApiCallError && e.code === 'conflict'
          ? `${path} already exists: not saved`
          : `Could not save ${path}: ${errorText(e)}`,
        'error',
      );
      return false;
    }
  }

  private async reload(): Promise<void> {
    const doc = this.active;
    if (doc === null) return;
    if (this.docs.isDirty(doc)) {
      const ok = await choose(
        'Discard your changes?',
        `Reload ${doc.path} from disk and discard your unsaved changes?`,
        [
          { id: 'reload', label: 'Reload and discard' },
          { id: 'cancel', label: 'Cancel', primary: true },
        ],
      );
      if (ok !== 'reload') return;
    }
    try {
      await this.docs.reload(doc);
      this.app.notify(`Reloaded ${doc.path}`);
    } catch (e) {
      this.app.notify(`Cannot reload ${doc.path}: ${errorText(e)}`, 'error');
    }
  }

  private async close(doc: Doc): Promise<void> {
    if (this.docs.isDirty(doc)) {
      const choice = await choose('Unsaved changes', `Save your changes to ${doc.path} before closing it?`, [
        { id: 'save', label: 'Save', primary: true },
        { id: 'discard', label: "Don't save" },
        { id: 'cancel', label: 'Cancel' },
      ]);
      if (choice === 'cancel') return;
      if (choice === 'save' && !(await this.save(doc))) return;
    }
    this.drop(doc);
  }

  private drop(doc: Doc): void {
    const i = this.order.indexOf(doc);
    if (i >= 0) this.order.splice(i, 1);
    this.checks.forget(doc);
    this.schemas.untrack(doc);
    this.wasDirty.delete(doc);
    const next = doc === this.active ? (this.order[Math.min(i, this.order.length - 1)] ?? null) : this.active;
    if (doc === this.active) {
      this.active = null;
      this.editor.setModel(null);
    }
    this.docs.close(doc);
    this.activate(next);
  }

  private async newFile(): Promise<void> {
    const path = await askPath(
      'New file',
      'A path in the workspace: .ltl for a specification; .json under tools/ (or *.tool.json) for a tool definition.',
      'specs/untitled.ltl',
      (p) => pathProblem(p),
    );
    if (path === null) return;
    const text = template(path);
    try {
      const { version } = await this.app.api.workspaceWrite({ path, text, baseVersion: null });
      const doc = this.docs.adopt(path, text, version);
      this.adopted(doc);
      this.activate(doc);
      void this.refreshFiles();
    } catch (e) {
      this.app.notify(
        e instanceof ApiCallError && e.code === 'conflict'
          ? `${path} already exists`
          : `Cannot create ${path}: ${errorText(e)}`,
        'error',
      );
    }
  }

  private useInMission(): void {
    const d = this.active;
    if (d?.kind !== 'ltl') return;
    const unsaved = this.docs.isDirty(d);
    this.app.notify(`${d.path} sent to the mission console${unsaved ? ' (with unsaved edits)' : ''}`);
    // The console says so on its own status line, which is the one showing next.
    this.app.post({ kind: 'use-spec', text: d.model.getValue(), path: d.path, unsaved });
    this.app.post({ kind: 'show-tab', tab: 'mission' });
  }
}

const slotOf = (d: Doc): Slot => (d.kind === 'tool' || d.kind === 'rules' ? 'tool' : 'spec');
const isChecked = (d: Doc): boolean => d.kind === 'ltl' || d.kind === 'tool' || d.kind === 'rules';

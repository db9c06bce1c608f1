/**
 * The Graph panel: a standalone explorer of a labelled graph file of the workspace, planned for a
 * spec, with the heat map, the automaton and the node detail beside it. It follows the mission
 * console (follow.ts keeps what it posts: scene, plan, robot, trail, monitor states) and opens the
 * mission's latent graph and product graph; fit-to-view, names on zoom, search by node id, and
 * node links elsewhere (failure records) land here centred on their node. What it shows and says
 * is decided in panel-model.ts; this file draws it and asks main.
 */
import './graph.css';
import type { GraphScene, MissionGraphView } from '../../../main/contract/api.js';
import { type App, type LocalMessage, type Panel, el } from '../app.js';
import { ApiCallError, errorText } from '../api.js';
import { type CyGraphView, createGraphView } from './cy-view.js';
import { type CyAutomatonView, createAutomatonView } from './cy-automaton.js';
import { renderDetail } from './detail.js';
import { planColours } from './cy-style.js';
import type { NodeDetail } from './view.js';
import { MissionFollow } from './follow.js';
import { type GraphDom, graphDom } from './panel-dom.js';
import {
  DrawnScene,
  Requests,
  type Shown,
  findError,
  initialStates,
  liveFrame,
  missionViewOf,
  openError,
  ownSceneLanding,
  statusLine,
} from './panel-model.js';

/**
 * The panel's views for end-to-end tests and for poking at from the developer tools, and the local
 * hub's post (to play the mission console's part).
 */
interface GraphTestHook {
  view: CyGraphView;
  automaton: CyAutomatonView;
  post: App['post'];
}

type FocusNode = Extract<LocalMessage, { kind: 'focus-node' }>;

export function graphPanel(): Panel {
  let view: GraphView | null = null;
  return {
    id: 'graph',
    title: 'Graph',
    mount(root, app: App) {
      view = new GraphView(root, app);
    },
    shown() {
      view?.gv.resize();
      view?.av.resize();
    },
  };
}

class GraphView {
  readonly gv: CyGraphView;
  readonly av: CyAutomatonView;
  private readonly d: GraphDom;
  private shown: Shown | null = null;
  /** The states highlighted when no node is selected: the monitor's (live run) or the initial ones. */
  private baseActive: number[] = [];
  private readonly drawn = new DrawnScene();
  private readonly requests = new Requests();
  private readonly mission = new MissionFollow();
  /** The audit run whose scene a node link brought (null: none, or not an audit run's). */
  private shownAudit: string | null = null;
  private backAction: (() => void) | null = null;

  constructor(
    root: HTMLElement,
    private readonly app: App,
  ) {
    const d = (this.d = graphDom(root));
    const gv = (this.gv = createGraphView(d.graphBox));
    const av = (this.av = createAutomatonView(d.autoBox));
    (window as unknown as { __witnessTest?: Record<string, unknown> }).__witnessTest ??= {};
    (window as unknown as { __witnessTest: Record<string, unknown> }).__witnessTest.graph = {
      view: gv,
      automaton: av,
      post: (m) => app.post(m),
    } satisfies GraphTestHook;
    new ResizeObserver(() => {
      gv.resize();
      av.resize();
    }).observe(d.graphBox);
    renderDetail(d.detail, null, gv.colours());
    this.wire();
    this.listFiles();
  }

  private showError(text: string | null): void {
    this.d.error.hidden = text === null;
    this.d.error.textContent = text ?? '';
  }

  private renderLegend(s: GraphScene | null): void {
    const legend = this.d.legend;
    legend.replaceChildren();
    if (s === null) return;
    const c = planColours();
    const item = (cls: string, colour: string, text: string): HTMLElement => {
      const sw = el('span', { class: `gp-swatch ${cls}` });
      sw.style.background = colour;
      return el('span', { class: 'gp-legend-item', 'data-legend': text }, sw, text);
    };
    for (const [p, colour] of this.gv.colours()) legend.append(item('prop', colour, p));
    legend.append(
      item('start', '#111', 'start'),
      item('line', c.prefix, 'prefix'),
      item('line', c.suffix, 'suffix'),
      item('robot', '#c92a2a', 'robot'),
    );
  }

  /**
   * Shows a scene; `note` goes before its status line. The status line is written first and the
   * view told to fit again last: the status line and the legend (whose colours are the new
   * scene's) can wrap and change the view's height, and a change within the same task leaves
   * the ResizeObserver nothing to report, so the view would keep the fit of another height.
   */
  private show(s: Shown, note?: string): void {
    const { gv, av, d } = this;
    this.shown = s;
    d.status.textContent = statusLine(s, note);
    if (this.drawn.needsDraw(s.scene, gv.scene())) {
      gv.setScene(s.scene);
      d.heat.replaceChildren(
        el('option', { value: '' }, 'none'),
        ...s.scene.propositions.map((p) => el('option', { value: p }, p)),
      );
      gv.setHeat(null);
    }
    try {
      gv.setPlan(s.plan);
    } catch (e) {
      this.showError(`The plan is not drawn: ${errorText(e)}`);
    }
    d.graphBox.dataset.source = s.source;
    d.missionView.value = missionViewOf(s.source);
    av.setAutomaton(s.automaton);
    d.formula.textContent = s.automaton?.formula ?? '';
    this.baseActive = initialStates(s.automaton);
    av.setActive(this.baseActive);
    this.renderLegend(s.scene);
    gv.resize();
  }

  private busy(on: boolean): void {
    this.d.open.disabled = on;
    this.d.cancel.hidden = !on;
    this.d.form.setAttribute('aria-busy', String(on));
  }

  /** Opens the graph file the form names, planned for its spec when one is given. */
  private openFile(): void {
    const d = this.d;
    const path = d.pathIn.value.trim();
    const spec = d.specIn.value.trim();
    if (path === '') return this.showError('Graph: give the path of a graph JSON file in the workspace.');
    const mine = this.requests.begin();
    this.busy(true);
    this.showError(null);
    d.specIn.removeAttribute('aria-invalid');
    d.status.textContent = spec === '' ? `opening ${path}…` : `opening ${path} and planning…`;
    this.app.api.sceneFromGraph(spec === '' ? { path } : { path, spec }).then(
      (r) => {
        if (!this.requests.current(mine)) return;
        this.busy(false);
        this.show({ ...r, source: 'file' });
      },
      (err: unknown) => {
        if (!this.requests.current(mine)) return;
        this.busy(false);
        d.status.textContent = '';
        const e = openError(errorText(err), err instanceof ApiCallError ? err.error : null);
        if (e.badSpec) d.specIn.setAttribute('aria-invalid', 'true');
        this.showError(e.text);
      },
    );
  }

  /** Workspace graph files for the picker, when the workspace can be listed. */
  private listFiles(): void {
    this.app.api.workspaceList().then(
      (r) => {
        this.d.files.replaceChildren(
          ...r.files.filter((f) => f.path.endsWith('.json')).map((f) => el('option', { value: f.path })),
        );
      },
      () => {
        /* no listing: the path is typed instead */
      },
    );
  }

  /** The monitor's states highlighted, unless a node's are (a node is selected). */
  private followStates(): void {
    const states = this.mission.states;
    if (states === null) return;
    this.baseActive = states;
    if ((this.d.detail.dataset.node ?? '') === '') this.av.setActive(states);
  }

  /** The robot and its trail drawn where the scene shares the task space's frame. */
  private drawRobot(): void {
    const live = liveFrame(this.shown?.source);
    this.gv.setTrail(live ? this.mission.trail : []);
    this.gv.setRobot(live ? this.mission.robot : null);
    this.followStates();
    this.d.followText.textContent = this.mission.describe();
  }

  private showMission(): void {
    const m = this.mission.current;
    if (m === null) return;
    this.showError(null);
    this.show({ scene: m.scene, plan: m.plan, automaton: m.automaton, source: 'console' }, 'from the mission console');
    this.drawRobot();
  }

  private openMissionGraph(v: MissionGraphView): void {
    const session = this.mission.current?.session ?? null;
    if (session === null) return this.showError('The mission console has no planned mission to show: plan one first.');
    this.showError(null);
    this.d.status.textContent = `opening the ${v} graph…`;
    this.app.api.missionGraph({ session, view: v }).then(
      (r) => {
        if (this.mission.current?.session !== session) return;
        this.show({ scene: r.scene, plan: r.plan, automaton: r.automaton, source: v }, r.note);
        this.drawRobot();
      },
      (e: unknown) => {
        this.d.status.textContent = '';
        this.showError(`${v} graph: ${errorText(e)}`);
        this.d.missionView.value = missionViewOf(this.shown?.source ?? null);
      },
    );
  }

  /** Shows a node: selected, centred and named; false (with the reason shown) when the graph has none such. */
  private focusNode(query: string): boolean {
    const { gv, d } = this;
    const id = gv.find(query);
    if (id === null) {
      this.showError(findError(query, gv.scene()));
      d.search.setAttribute('aria-invalid', 'true');
      return false;
    }
    this.showError(null);
    d.search.removeAttribute('aria-invalid');
    d.search.value = id;
    gv.focus(id);
    return true;
  }

  /**
   * A node link from an audited run: the run's own scene, never another graph that happens to have
   * a node of that id. The live mission's graph serves when it is that run and places the node; else
   * the run's scene from the log, which places only its plans' nodes — false, said, when it has not it.
   */
  private showOwnScene(id: string, own: NonNullable<FocusNode['scene']>, auditRun: string | undefined): boolean {
    const landing = ownSceneLanding({
      id,
      own,
      auditRun,
      mission: { auditRun: this.mission.auditRun, scene: this.mission.current?.scene ?? null },
      shown: { source: this.shown?.source ?? null, auditRun: this.shownAudit, scene: this.gv.scene() },
    });
    if (landing.to === 'mission') {
      if (this.shown?.source !== 'console') this.showMission();
      return true;
    }
    if (landing.redraw) {
      // Its scene stays on the screen: following the mission would replace it at the next replan.
      this.d.follow.checked = false;
      this.show({ ...own, source: 'other' }, landing.note);
      this.shownAudit = auditRun ?? null;
    }
    if (landing.error !== null) this.showError(landing.error);
    return landing.error === null;
  }

  private focusMessage(m: FocusNode): void {
    const d = this.d;
    this.app.post({ kind: 'show-tab', tab: 'graph' });
    if (m.scene === undefined) {
      // A node of the live mission (the console's log, an escalation): on the mission's graph, not on a file's.
      if (this.shown?.source === 'file' || this.shown?.source === 'other') this.showMission();
    } else if (!this.showOwnScene(m.id, m.scene, m.auditRun)) return;
    if (this.focusNode(m.id)) d.search.value = m.id;
    this.backAction = m.back?.action ?? null;
    d.back.hidden = this.backAction === null;
    d.back.textContent = m.back?.label ?? '';
  }

  private onMessage(m: LocalMessage): void {
    const { d, mission } = this;
    switch (m.kind) {
      case 'scene':
        mission.scene(m);
        d.missionView.disabled = false;
        if (d.follow.checked) this.showMission();
        break;
      case 'robot':
        mission.robotAt(m);
        if (d.follow.checked && mission.ticks % 10 !== 1) {
          // The marker every tick, the trail every tenth (a redraw of the canvas).
          if (liveFrame(this.shown?.source)) this.gv.setRobot(mission.robot);
          this.followStates();
          d.followText.textContent = mission.describe();
        } else if (d.follow.checked) this.drawRobot();
        break;
      case 'trail':
        mission.setTrail(m.points, m.ended, m.auditRun);
        if (d.follow.checked) this.drawRobot();
        break;
      case 'focus-node':
        this.focusMessage(m);
        break;
    }
  }

  private wire(): void {
    const { d, gv, av } = this;
    gv.onSelect((n: NodeDetail | null) => {
      renderDetail(d.detail, n, gv.colours());
      av.setActive(n !== null && n.productStates.length > 0 ? n.productStates : this.baseActive);
    });
    d.heat.addEventListener('change', () => gv.setHeat(d.heat.value === '' ? null : d.heat.value));
    d.cancel.addEventListener('click', () => {
      this.requests.cancel();
      this.busy(false);
      d.status.textContent = 'cancelled';
    });
    d.form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.openFile();
    });
    d.missionView.addEventListener('change', () => {
      const v = d.missionView.value;
      if (v === 'latent' || v === 'product') this.openMissionGraph(v);
      else this.showMission();
    });
    // Ticking Follow again catches up with the mission at once.
    d.follow.addEventListener('change', () => {
      if (d.follow.checked && this.mission.current !== null) this.showMission();
    });
    d.fitBtn.addEventListener('click', () => gv.fit());
    d.findForm.addEventListener('submit', (e) => {
      e.preventDefault();
      if (d.search.value.trim() === '') {
        this.showError('Find: type a node id, e.g. c29 or anchor:e1:0.');
        d.search.setAttribute('aria-invalid', 'true');
        return;
      }
      this.focusNode(d.search.value);
    });
    d.back.addEventListener('click', () => {
      d.back.hidden = true;
      const a = this.backAction;
      this.backAction = null;
      a?.();
    });
    this.app.onMessage((m) => this.onMessage(m));
  }
}

/**
 * The Graph panel: a standalone explorer of a labelled graph file of the workspace, planned for a
 * spec, with the heat map, the automaton and the node detail beside it. It follows the mission
 * console (follow.ts keeps what it posts: scene, plan, robot, trail, monitor states) and opens the
 * mission's latent graph and product graph; fit-to-view, names on zoom, search by node id, and
 * node links elsewhere (failure records) land here centred on their node.
 */
import './graph.css';
import type { AutomatonView, GraphScene, MissionGraphView, PlanView } from '../../../main/contract/api.js';
import { type App, type LocalMessage, type Panel, el } from '../app.js';
import { ApiCallError, errorText } from '../api.js';
import { type CyGraphView, createGraphView } from './cy-view.js';
import { type CyAutomatonView, createAutomatonView } from './cy-automaton.js';
import { renderDetail } from './detail.js';
import { planColours } from './cy-style.js';
import type { NodeDetail } from './view.js';
import { MissionFollow } from './follow.js';

interface Shown {
  scene: GraphScene;
  plan: PlanView | null;
  automaton: AutomatonView | null;
  /**
   * 'file' (opened here), 'console' (the mission console's scene: robot and trail apply), 'latent'
   * (the mission's latent graph: same frame, robot and trail apply), 'product' (graph × automaton),
   * 'other' (a scene a node link brought, e.g. an audit run's).
   */
  source: 'file' | 'console' | MissionGraphView | 'other';
}

/**
 * The panel's views for end-to-end tests and for poking at from the developer tools, and the local
 * hub's post (to play the mission console's part).
 */
export interface GraphTestHook {
  view: CyGraphView;
  automaton: CyAutomatonView;
  post: App['post'];
}

function describePlan(p: PlanView | null): string {
  if (p === null) return '';
  if (p.status !== 'ok')
    return `infeasible: ${p.reason?.message ?? p.reason?.kind ?? 'no plan'}${p.explanation ? `. Why: ${p.explanation.message}` : ''}`;
  const c = p.cost;
  return `plan: prefix ${p.prefix.length} steps${c ? ` (cost ${c.prefix.toFixed(2)})` : ''}, suffix ${p.suffix.length} steps${c ? ` (cost ${c.suffix.toFixed(2)})` : ''}`;
}

export function graphPanel(): Panel {
  let view: CyGraphView | null = null;
  let automaton: CyAutomatonView | null = null;
  return {
    id: 'graph',
    title: 'Graph',
    mount(root, app: App) {
      const pathIn = el('input', {
        id: 'graph-path',
        list: 'graph-files',
        placeholder: 'graphs/warehouse.json',
        size: '28',
        'aria-label': 'Graph file (in the workspace)',
        required: '',
      });
      const files = el('datalist', { id: 'graph-files' });
      const specIn = el('input', {
        id: 'graph-spec',
        placeholder: 'G F a & G F b & G !c',
        size: '32',
        'aria-label': 'LTL specification (optional)',
      });
      const open = el('button', { id: 'graph-open', type: 'submit' }, 'Open');
      const cancel = el('button', { id: 'graph-cancel', type: 'button', hidden: '' }, 'Cancel');
      const heat = el(
        'select',
        { id: 'graph-heat', 'aria-label': 'Heat map proposition' },
        el('option', { value: '' }, 'none'),
      );
      const status = el('span', { class: 'gp-status', id: 'graph-status', role: 'status' });
      const form = el(
        'form',
        { class: 'gp-bar' },
        el('label', {}, 'Graph ', pathIn),
        files,
        el('label', {}, 'Spec ', specIn),
        open,
        cancel,
        el('label', {}, 'Heat map ', heat),
        status,
      );
      // The mission: follow it, or look at its latent or product graph; fit, find a node.
      const follow = el('input', { id: 'graph-follow', type: 'checkbox', checked: '' });
      const missionView = el(
        'select',
        { id: 'graph-mission-view', 'aria-label': 'Which graph of the mission', disabled: '' },
        el('option', { value: 'console' }, 'mission (live)'),
        el('option', { value: 'latent' }, 'latent graph'),
        el('option', { value: 'product' }, 'product graph'),
      );
      const fitBtn = el('button', { id: 'graph-fit', type: 'button', title: 'Fit the whole graph in view' }, 'Fit');
      const search = el('input', {
        id: 'graph-search',
        type: 'search',
        placeholder: 'node id, e.g. c29',
        size: '16',
        'aria-label': 'Find a node by id',
      });
      const find = el('button', { id: 'graph-find', type: 'submit' }, 'Find');
      const back = el('button', { id: 'graph-back', type: 'button', hidden: '' });
      const followText = el('span', { class: 'gp-follow', id: 'graph-follow-status', role: 'status' });
      const findForm = el(
        'form',
        { class: 'gp-bar gp-bar2' },
        el(
          'label',
          { title: 'Show what the mission console plans and runs, as it happens' },
          follow,
          ' Follow the mission',
        ),
        missionView,
        fitBtn,
        el('label', {}, 'Find ', search),
        find,
        back,
        followText,
      );
      const error = el('div', { class: 'gp-error error', id: 'graph-error', role: 'alert', hidden: '' });
      const graphBox = el('div', { class: 'gp-graph', id: 'graph-view' });
      const legend = el('div', { class: 'gp-legend', id: 'graph-legend' });
      const autoBox = el('div', { class: 'gp-automaton', id: 'automaton-view' });
      const formula = el('div', { class: 'gp-formula', id: 'automaton-formula' });
      const detail = el('div', { class: 'gp-detail', id: 'graph-detail' });
      root.append(
        el(
          'div',
          { class: 'gp' },
          form,
          findForm,
          error,
          el(
            'div',
            { class: 'gp-main' },
            el('div', { class: 'gp-graph-wrap' }, graphBox, legend),
            el(
              'aside',
              { class: 'gp-side' },
              el('h3', {}, 'Büchi automaton'),
              formula,
              autoBox,
              el('h3', {}, 'Node'),
              detail,
            ),
          ),
        ),
      );

      const gv = createGraphView(graphBox);
      const av = createAutomatonView(autoBox);
      view = gv;
      automaton = av;
      (window as unknown as { __witnessTest?: Record<string, unknown> }).__witnessTest ??= {};
      (window as unknown as { __witnessTest: Record<string, unknown> }).__witnessTest.graph = {
        view: gv,
        automaton: av,
        post: (m) => app.post(m),
      } satisfies GraphTestHook;
      new ResizeObserver(() => {
        gv.resize();
        av.resize();
      }).observe(graphBox);

      let shown: Shown | null = null;
      /** The states highlighted when no node is selected: the monitor's (live run) or the initial ones. */
      let baseActive: number[] = [];
      renderDetail(detail, null, gv.colours());

      const showError = (text: string | null): void => {
        error.hidden = text === null;
        error.textContent = text ?? '';
      };
      const renderLegend = (s: GraphScene | null): void => {
        legend.replaceChildren();
        if (s === null) return;
        const c = planColours();
        const item = (cls: string, colour: string, text: string): HTMLElement => {
          const sw = el('span', { class: `gp-swatch ${cls}` });
          sw.style.background = colour;
          return el('span', { class: 'gp-legend-item', 'data-legend': text }, sw, text);
        };
        for (const [p, colour] of gv.colours()) legend.append(item('prop', colour, p));
        legend.append(
          item('start', '#111', 'start'),
          item('line', c.prefix, 'prefix'),
          item('line', c.suffix, 'suffix'),
          item('robot', '#c92a2a', 'robot'),
        );
      };
      /** The scene drawn now, as JSON: the same graph planned again keeps its drawing and viewport. */
      let drawn: { json: string; scene: GraphScene } | null = null;
      /**
       * Shows a scene; `note` goes before its status line. The status line is written first and the
       * view told to fit again last: the status line and the legend (whose colours are the new
       * scene's) can wrap and change the view's height, and a change within the same task leaves
       * the ResizeObserver nothing to report, so the view would keep the fit of another height.
       */
      const show = (s: Shown, note?: string): void => {
        shown = s;
        status.textContent = [
          note,
          `${s.scene.world}: ${s.scene.nodes.length} nodes, ${s.scene.edges.length} edges`,
          describePlan(s.plan),
        ]
          .filter(Boolean)
          .join(' · ');
        const json = JSON.stringify(s.scene);
        if (drawn === null || json !== drawn.json || gv.scene() !== drawn.scene) {
          drawn = { json, scene: s.scene };
          gv.setScene(s.scene);
          heat.replaceChildren(
            el('option', { value: '' }, 'none'),
            ...s.scene.propositions.map((p) => el('option', { value: p }, p)),
          );
          gv.setHeat(null);
        }
        try {
          gv.setPlan(s.plan);
        } catch (e) {
          showError(`The plan is not drawn: ${errorText(e)}`);
        }
        graphBox.dataset.source = s.source;
        missionView.value =
          s.source === 'console' || s.source === 'latent' || s.source === 'product' ? s.source : 'console';
        av.setAutomaton(s.automaton);
        formula.textContent = s.automaton?.formula ?? '';
        baseActive = s.automaton?.states.filter((q) => q.initial).map((q) => q.id) ?? [];
        av.setActive(baseActive);
        renderLegend(s.scene);
        gv.resize();
      };

      gv.onSelect((d: NodeDetail | null) => {
        renderDetail(detail, d, gv.colours());
        av.setActive(d !== null && d.productStates.length > 0 ? d.productStates : baseActive);
      });
      heat.addEventListener('change', () => gv.setHeat(heat.value === '' ? null : heat.value));

      // One request at a time; Cancel (or a newer Open) makes the answer of the older one ignored.
      let generation = 0;
      const busy = (on: boolean): void => {
        open.disabled = on;
        cancel.hidden = !on;
        form.setAttribute('aria-busy', String(on));
      };
      cancel.addEventListener('click', () => {
        generation++;
        busy(false);
        status.textContent = 'cancelled';
      });
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        const path = pathIn.value.trim();
        const spec = specIn.value.trim();
        if (path === '') return showError('Graph: give the path of a graph JSON file in the workspace.');
        const mine = ++generation;
        busy(true);
        showError(null);
        specIn.removeAttribute('aria-invalid');
        status.textContent = spec === '' ? `opening ${path}…` : `opening ${path} and planning…`;
        app.api.sceneFromGraph(spec === '' ? { path } : { path, spec }).then(
          (r) => {
            if (mine !== generation) return;
            busy(false);
            show({ ...r, source: 'file' });
          },
          (err: unknown) => {
            if (mine !== generation) return;
            busy(false);
            status.textContent = '';
            const ae = err instanceof ApiCallError ? err.error : null;
            if (ae?.path === '$.spec') specIn.setAttribute('aria-invalid', 'true');
            const where = ae?.line !== undefined ? ` (line ${ae.line}, column ${ae.column ?? '?'})` : '';
            showError(`${errorText(err)}${ae?.path === '$.spec' ? where : ''}`);
          },
        );
      });

      // Workspace graph files for the picker, when the workspace can be listed.
      app.api.workspaceList().then(
        (r) => {
          files.replaceChildren(
            ...r.files.filter((f) => f.path.endsWith('.json')).map((f) => el('option', { value: f.path })),
          );
        },
        () => {
          /* no listing: the path is typed instead */
        },
      );

      // ---- following the mission console
      const mission = new MissionFollow();
      /** The robot and its trail drawn where the scene shares the task space's frame. */
      const drawRobot = (): void => {
        const live = shown?.source === 'console' || shown?.source === 'latent';
        gv.setTrail(live ? mission.trail : []);
        gv.setRobot(live ? mission.robot : null);
        if (mission.states !== null) {
          baseActive = mission.states;
          if ((detail.dataset.node ?? '') === '') av.setActive(mission.states);
        }
        followText.textContent = mission.describe();
      };
      const showMission = (): void => {
        const m = mission.current;
        if (m === null) return;
        showError(null);
        show({ scene: m.scene, plan: m.plan, automaton: m.automaton, source: 'console' }, 'from the mission console');
        drawRobot();
      };
      const openMissionGraph = (v: MissionGraphView): void => {
        const session = mission.current?.session ?? null;
        if (session === null) return showError('The mission console has no planned mission to show: plan one first.');
        showError(null);
        status.textContent = `opening the ${v} graph…`;
        app.api.missionGraph({ session, view: v }).then(
          (r) => {
            if (mission.current?.session !== session) return;
            show({ scene: r.scene, plan: r.plan, automaton: r.automaton, source: v }, r.note);
            drawRobot();
          },
          (e: unknown) => {
            status.textContent = '';
            showError(`${v} graph: ${errorText(e)}`);
            missionView.value = shown?.source === 'latent' || shown?.source === 'product' ? shown.source : 'console';
          },
        );
      };
      missionView.addEventListener('change', () => {
        const v = missionView.value;
        if (v === 'latent' || v === 'product') openMissionGraph(v);
        else showMission();
      });
      // Ticking Follow again catches up with the mission at once.
      follow.addEventListener('change', () => {
        if (follow.checked && mission.current !== null) showMission();
      });
      fitBtn.addEventListener('click', () => gv.fit());
      /** Shows a node: selected, centred and named; false (with the reason shown) when the graph has none such. */
      const focusNode = (query: string): boolean => {
        const id = gv.find(query);
        if (id === null) {
          const s = gv.scene();
          const examples =
            s === null
              ? ''
              : `; ids such as ${s.nodes
                  .slice(0, 3)
                  .map((n) => n.id)
                  .join(', ')}`;
          showError(
            s === null
              ? `Find: no graph is shown to look for "${query.trim()}" in.`
              : `Find: no node "${query.trim()}" in this graph (${s.nodes.length} nodes${examples}).`,
          );
          search.setAttribute('aria-invalid', 'true');
          return false;
        }
        showError(null);
        search.removeAttribute('aria-invalid');
        search.value = id;
        gv.focus(id);
        return true;
      };
      findForm.addEventListener('submit', (e) => {
        e.preventDefault();
        if (search.value.trim() === '') {
          showError('Find: type a node id, e.g. c29 or anchor:e1:0.');
          search.setAttribute('aria-invalid', 'true');
          return;
        }
        focusNode(search.value);
      });
      /**
       * A node link from an audited run: the run's own scene, never another graph that happens to have
       * a node of that id. The live mission's graph serves when it is that run and places the node; else
       * the run's scene from the log, which places only its plans' nodes — false, said, when it has not it.
       */
      let shownAudit: string | null = null;
      const showOwnScene = (
        id: string,
        own: NonNullable<Extract<LocalMessage, { kind: 'focus-node' }>['scene']>,
        auditRun: string | undefined,
      ): boolean => {
        const run = auditRun !== undefined ? `audit run ${auditRun.slice(0, 8)}` : 'the audited run';
        if (
          auditRun !== undefined &&
          auditRun === mission.auditRun &&
          mission.current !== null &&
          mission.current.scene.nodes.some((n) => n.id === id)
        ) {
          if (shown?.source !== 'console') showMission();
          return true;
        }
        if (shown?.source !== 'other' || shownAudit !== (auditRun ?? null) || gv.scene() !== own.scene) {
          // Its scene stays on the screen: following the mission would replace it at the next replan.
          follow.checked = false;
          show({ ...own, source: 'other' }, `${run} (from the audit log)`);
          shownAudit = auditRun ?? null;
        }
        if (own.scene.nodes.some((n) => n.id === id)) return true;
        showError(
          `${id} cannot be shown in ${run}'s scene: the audit log does not record where graph nodes are, the replay places only the nodes of the run's plans, and ${id} is on none of them.`,
        );
        return false;
      };
      let backAction: (() => void) | null = null;
      back.addEventListener('click', () => {
        back.hidden = true;
        const a = backAction;
        backAction = null;
        a?.();
      });

      app.onMessage((m) => {
        switch (m.kind) {
          case 'scene':
            mission.scene(m);
            missionView.disabled = false;
            if (follow.checked) showMission();
            break;
          case 'robot':
            mission.robotAt(m);
            if (follow.checked && mission.ticks % 10 !== 1) {
              // The marker every tick, the trail every tenth (a redraw of the canvas).
              if (shown?.source === 'console' || shown?.source === 'latent') gv.setRobot(mission.robot);
              if (mission.states !== null) {
                baseActive = mission.states;
                if ((detail.dataset.node ?? '') === '') av.setActive(mission.states);
              }
              followText.textContent = mission.describe();
            } else if (follow.checked) drawRobot();
            break;
          case 'trail':
            mission.setTrail(m.points, m.ended, m.auditRun);
            if (follow.checked) drawRobot();
            break;
          case 'focus-node': {
            app.post({ kind: 'show-tab', tab: 'graph' });
            if (m.scene === undefined) {
              // A node of the live mission (the console's log, an escalation): on the mission's graph, not on a file's.
              if (shown?.source === 'file' || shown?.source === 'other') showMission();
            } else if (!showOwnScene(m.id, m.scene, m.auditRun)) break;
            if (focusNode(m.id)) search.value = m.id;
            backAction = m.back?.action ?? null;
            back.hidden = backAction === null;
            back.textContent = m.back?.label ?? '';
            break;
          }
        }
      });
    },
    shown() {
      view?.resize();
      automaton?.resize();
    },
  };
}

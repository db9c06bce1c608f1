/**
 * The mission console: choose a world, load a specification and regions, plan and inspect the
 * plan on the graph view, run it, pause, stop; an escalation opens a blocking dialog whose decision
 * and reason go to the audit log. Every window is an operator station: a mission run, whichever
 * window started it, is joined from its snapshot (missionLive: state, plan, trail, plots, events)
 * and followed by its numbered events, so any window shows it and can pause, stop and E-STOP it.
 *
 * The view: model.ts holds what the console knows and derives what it shows; this file builds nothing but the
 * wiring (mission-form.ts builds the elements, mission-run.ts follows a run).
 */
import './console.css';
import type { MissionPlanResult } from '../../../main/contract/api.js';
import { type Panel, el } from '../app.js';
import { errorText } from '../api.js';
import { createAutomatonView, createGraphView } from '../graph/view.js';
import { drawMission } from '../graph/draw.js';
import { trainDialog } from './train.js';
import { fillHeat, missionDom, missionLayout, shaLine } from './mission-form.js';
import {
  changedSincePlan,
  initialModel,
  latchChanged,
  parseStart,
  planFailed,
  explanationLines,
  planLines,
  planRequest,
  planShown,
  planSpent,
  planStarted,
  shortSha,
  type PlanInputs,
  type WhyLegendLine,
  whyLegend,
} from './model.js';
import { whyDrawing } from '../graph/why-model.js';
import { clearErrors, fieldValues, render, showError, type View } from './mission-view.js';
import { followRuns } from './mission-run.js';
import { chooseWorldFor, loadWorlds } from './mission-worlds.js';
import { rememberFields, restoreFields } from './mission-store.js';

export function missionPanel(): Panel {
  let v: View | null = null;
  let refreshFiles: () => void = () => {};
  return {
    id: 'mission',
    title: 'Mission',
    shown() {
      refreshFiles();
      v?.graph?.resize();
      v?.automaton?.resize();
      v?.d.plots.resize();
    },
    mount(root, a) {
      const d = missionDom();
      v = {
        a,
        d,
        m: initialModel,
        graph: null,
        automaton: null,
        trail: [],
        worlds: new Map(),
        focusAfterRun: false,
        join: () => {},
      };
      const view = v;
      refreshFiles = wireFiles(view);
      const training = trainDialog(a, (w, m) => {
        void loadWorlds(view, false).then(() => {
          if (d.world.value === w) d.models.value = m;
        });
      });
      d.trainBtn.addEventListener('click', () => training.open(d.world.value));
      root.append(missionLayout(d, a), training.element);
      view.graph = createGraphView(d.graphRoot);
      view.automaton = createAutomatonView(d.autoRoot);
      // The maze and the automaton refit when their boxes change size (the window, the layout).
      new ResizeObserver(() => view.graph?.resize()).observe(d.graphRoot);
      new ResizeObserver(() => view.automaton?.resize()).observe(d.autoRoot);
      (window as unknown as { __witnessTest?: Record<string, unknown> }).__witnessTest ??= {};
      (window as unknown as { __witnessTest: Record<string, unknown> }).__witnessTest.mission = {
        graph: view.graph,
        automaton: view.automaton,
      };
      d.heat.addEventListener('change', () => view.graph?.setHeat(d.heat.value === '' ? null : d.heat.value));
      wireInputs(view);
      d.world.addEventListener('change', () => chooseWorldFor(view, d.world.value));
      void loadWorlds(view, true).then(() => restoreFields(view, showPlan));
      wireUseSpec(view);
      wirePlan(view);
      wireRun(view);
      followRuns(view);
      a.api.estopState().then(
        (st) => {
          view.m = latchChanged(view.m, st.latched);
          render(view);
        },
        () => {
          /* the header reports it */
        },
      );
    },
  };
}

/** A plan is bound to the inputs it was made from: editing any marks it stale (Run waits for a new plan). */
function wireInputs(v: View): void {
  const { d } = v;
  for (const e of Object.values(d.inputs)) {
    e.addEventListener('input', () => render(v));
    e.addEventListener('change', () => render(v));
  }
  // An error at a field is about what it held: editing it clears the error.
  d.spec.addEventListener('input', () => (d.specError.textContent = ''));
  d.regions.addEventListener('input', () => (d.regionsError.textContent = ''));
  for (const e of [...Object.values(d.inputs), d.replans, d.speed])
    e.addEventListener('change', () => rememberFields(v, null));
}

/** Specifications and regions can come from the workspace folder (the editors save there). */
function wireFiles(v: View): () => void {
  const { a, d } = v;
  const fill = (select: HTMLSelectElement, what: string, ext: RegExp, files: readonly string[]): void => {
    select.replaceChildren(
      el('option', { value: '' }, `load ${what} from the workspace…`),
      ...files.filter((f) => ext.test(f)).map((f) => el('option', { value: f }, f)),
    );
  };
  const refresh = (): void => {
    a.api.workspaceList().then(
      (w) => {
        const files = w.files.map((f) => f.path);
        fill(d.specFile, 'a specification', /\.ltl$/, files);
        fill(d.regionsFile, 'regions', /\.json$/, files);
      },
      () => {
        /* no workspace: the selects stay empty */
      },
    );
  };
  const loadInto = (select: HTMLSelectElement, target: HTMLTextAreaElement, err: HTMLElement): void => {
    select.addEventListener('change', () => {
      if (select.value === '') return;
      a.api
        .workspaceRead({ path: select.value })
        .then(
          (r) => {
            target.value = r.text;
            d.errors.textContent = '';
            err.textContent = '';
            render(v);
          },
          (e: unknown) => {
            d.errors.textContent = `${select.value}: ${errorText(e)}`;
          },
        )
        .finally(() => {
          select.value = '';
        });
    });
  };
  loadInto(d.specFile, d.spec, d.specError);
  loadInto(d.regionsFile, d.regions, d.regionsError);
  refresh();
  return refresh;
}

/** A specification sent from the editors. */
function wireUseSpec(v: View): void {
  const { a, d } = v;
  a.onMessage((m) => {
    if (m.kind !== 'use-spec') return;
    d.spec.value = m.text;
    d.specError.textContent = '';
    render(v);
    const stale = v.m.planned !== null && changedSincePlan(v.m, fieldValues(v)).length > 0;
    a.notify(
      `${m.path ?? 'a specification'} sent to the mission console${m.unsaved === true ? ' (with unsaved edits)' : ''}${stale ? ': the plan on the screen is stale' : ''}`,
    );
    a.post({ kind: 'show-tab', tab: 'mission' });
  });
}

/** The plan on the screen can no longer run (a robot's plan that ran, or whose robot moved). */
function spend(v: View, why: string): void {
  v.m = planSpent(v.m);
  v.d.summary.append(el('div', { class: 'stale', id: 'plan-spent' }, why));
  render(v);
}

/** Nothing of an earlier plan (or world) stays drawn while a new plan builds. */
function clearDrawing(v: View): void {
  v.trail.length = 0;
  try {
    v.graph?.setScene(null);
    v.automaton?.setAutomaton(null);
  } catch {
    // Clearing is best effort: the new plan draws over whatever stays.
  }
  v.d.live.textContent = '';
  showWhyLegend(v, []);
}

/** The legend of what the world view draws for an explanation: a swatch and a line for each role (none: hidden). */
function showWhyLegend(v: View, lines: readonly WhyLegendLine[]): void {
  v.d.whyLegend.hidden = lines.length === 0;
  v.d.whyLegend.replaceChildren(
    ...lines.map((l) => el('li', { class: `why-${l.key}` }, el('span', { class: 'swatch' }), l.text)),
  );
}

function wirePlan(v: View): void {
  const { a, d } = v;
  d.planBtn.addEventListener('click', () => {
    clearErrors(v);
    a.notify(''); // what the line said was about the last plan or run
    const s = parseStart(d.start.value);
    if (s === null) {
      d.errors.textContent = 'Start: expected "x,y" in metres, e.g. 4,20';
      d.start.focus();
      return;
    }
    const asked = fieldValues(v);
    v.m = planStarted(v.m);
    const seq = v.m.planSeq;
    // The plan on the screen goes, and is no longer drawn: nothing runs until the new one is drawn.
    clearDrawing(v);
    render(v);
    d.planBtn.disabled = true;
    d.summary.textContent = 'Planning…';
    const robot = v.worlds.get(asked.world)?.kind === 'robot';
    a.api.missionPlan(planRequest(`plan-${Date.now()}`, asked, robot, s)).then(
      (r) => {
        if (seq !== v.m.planSeq) return; // a newer plan was asked for
        if (showPlan(v, r, asked)) rememberFields(v, { session: r.session, inputs: asked });
      },
      (e: unknown) => {
        if (seq !== v.m.planSeq) return;
        d.summary.textContent = 'No plan.';
        showError(v, e);
        render(v);
      },
    );
  });
}

/** Draws a plan and binds it to the inputs it was made from; false when it could not be drawn (then it is not kept). */
function showPlan(v: View, r: MissionPlanResult, asked: PlanInputs): boolean {
  const { a, d } = v;
  v.trail.length = 0;
  v.m = planFailed(v.m);
  try {
    // Kept (and Run-able) only once drawn: a plan that could not be drawn is not shown, so it cannot run.
    drawMission(v.graph, v.automaton, r.scene, r.plan, r.automaton);
  } catch (e) {
    d.summary.textContent = 'No plan.';
    d.errors.textContent = errorText(e);
    render(v);
    return false;
  }
  v.m = planShown(v.m, r, asked);
  a.post({ kind: 'scene', scene: r.scene, plan: r.plan, automaton: r.automaton, session: r.session });
  fillHeat(d.heat, r.scene.propositions);
  const lines = planLines(r);
  const why = explanationLines(r.plan.explanation);
  showWhyLegend(v, whyLegend(whyDrawing(r.plan.explanation, r.scene)));
  d.summary.replaceChildren(
    el('div', { class: `plan-status ${r.plan.status}` }, lines.status),
    el('div', {}, lines.detail),
    ...(why === null
      ? []
      : [
          el('div', { class: 'plan-why', id: 'plan-why' }, why.title),
          el('ul', { class: 'plan-why-items' }, ...why.items.map((t) => el('li', {}, t))),
        ]),
    shaLine('plan-sha', `${r.method} plan (Run executes it)`, r.plan_sha, shortSha(r.plan_sha)),
    el('div', { class: 'muted', id: r.robot !== undefined ? 'plan-robot' : 'plan-report' }, lines.report),
    d.stale,
  );
  render(v);
  return true;
}

function wireRun(v: View): void {
  const { a, d } = v;
  d.runBtn.addEventListener('click', () => {
    const planned = v.m.planned;
    if (planned === null || changedSincePlan(v.m, fieldValues(v)).length > 0 || v.m.latched) return;
    clearErrors(v);
    a.notify('');
    v.focusAfterRun = true;
    // The run's events bring it to this window as to every other (followRuns).
    a.api.missionRun({ session: planned.session, replans: Number(d.replans.value), speed: Number(d.speed.value) }).then(
      (r) => {
        if (v.m.run !== r.run) v.join(r.run);
        // A robot's plan runs once: the robot moves, so the next run needs a plan from where it is then.
        if (v.m.planned?.robot !== undefined) spend(v, 'This plan has run: plan again from where the robot is now.');
      },
      (e: unknown) => {
        v.focusAfterRun = false;
        d.errors.textContent = errorText(e);
        if ((e as { code?: string }).code === 'conflict' && v.m.planned?.robot !== undefined)
          spend(v, 'The robot has moved since this plan: plan again.');
      },
    );
  });
  const control = (action: () => 'pause' | 'resume' | 'stop'): void => {
    const run = v.m.run;
    if (run === null) return;
    void a.api.missionControl({ run, action: action() }).catch((e: unknown) => {
      d.errors.textContent = errorText(e);
    });
  };
  d.pauseBtn.addEventListener('click', () => control(() => (v.m.runState === 'paused' ? 'resume' : 'pause')));
  d.stopBtn.addEventListener('click', () => control(() => 'stop'));
}

/**
 * The mission console follows a run: joined from its snapshot (whichever window started it), then by its numbered
 * events: ticks move the robot and the plots, replans redraw the plan, the end says how it ended.
 */
import type { MissionEvent, MissionLive, MissionLiveTick } from '../../../main/contract/api.js';
import { el } from '../app.js';
import { errorText } from '../api.js';
import { drawMission } from '../graph/draw.js';
import { linkNodes } from '../graph/node-links.js';
import { fillHeat, shaLine } from './mission-form.js';
import {
  adopted,
  endLines,
  ended,
  eventApplied,
  isActive,
  isNewEvent,
  joinedLines,
  latchChanged,
  outcomeLabel,
  shortSha,
  stateChanged,
  tickLine,
  trajectoryPoints,
  type MissionEnd,
} from './model.js';
import { render, type View } from './mission-view.js';
import { planSteps } from '../../../main/contract/plan-steps.js';

const addLog = (v: View, t: number, text: string, kind = ''): void => {
  linkNodes(v.d.logPanel.add(t, text, kind), (id) => v.a.post({ kind: 'focus-node', id }));
};

/** The sha of the plan in force after a replan, under the summary (one line: the latest). */
function showReplanSha(v: View, t: number, sha: string): void {
  v.d.summary.querySelector('#plan-replan-sha')?.remove();
  v.d.summary.append(shaLine('plan-replan-sha', `replanned at t=${t}`, sha, shortSha(sha)));
}

/** A tick kept: the trail and the plots (a joined run's past ticks, each once). */
function recordTick(v: View, m: MissionLiveTick): void {
  v.trail.push([m.x, m.y]);
  v.d.plots.tick(m);
}

/** A tick: kept, and shown as where the robot is now (here and on the Graph tab). */
function showTick(v: View, m: MissionLiveTick): void {
  recordTick(v, m);
  presentTick(v, m);
}

/** The robot, the monitor and the live line at a tick already kept. */
function presentTick(v: View, m: MissionLiveTick): void {
  v.graph?.setRobot({ x: m.x, y: m.y });
  v.automaton?.setActive(m.states);
  v.d.live.textContent = tickLine(m);
  v.a.post({ kind: 'robot', x: m.x, y: m.y, states: m.states, t: m.t, labels: m.labels });
}

function showEnd(v: View, m: MissionEnd, notify: boolean): void {
  // The whole driven path replaces the sampled ticks; the marker goes where the robot ended.
  if (m.trajectory.length >= 2) {
    v.trail.splice(0, v.trail.length, ...trajectoryPoints(m.trajectory));
    const [x, y] = v.trail[v.trail.length - 1]!;
    v.graph?.setRobot({ x, y });
    v.d.live.textContent = `t=${m.steps}  (${x.toFixed(2)}, ${y.toFixed(2)})  ended`;
  }
  v.graph?.setTrail(v.trail);
  v.a.post({ kind: 'trail', points: [...v.trail], ended: true, auditRun: m.auditRun });
  const lines = endLines(m);
  addLog(v, m.steps, lines.log, lines.kind);
  v.d.plots.end(m.steps, outcomeLabel(m));
  if (notify && lines.notify !== null) v.a.notify(lines.notify.text, lines.notify.level);
  v.m = ended(v.m, m);
  render(v);
}

function showReplan(v: View, m: Extract<MissionEvent, { topic: 'mission.replan' }>): void {
  try {
    drawMission(v.graph, null, m.scene, m.plan, null);
  } catch (err) {
    v.d.errors.textContent = `replan at t=${m.t}: ${errorText(err)}`;
  }
  v.graph?.setTrail(v.trail);
  v.a.post({
    kind: 'scene',
    scene: m.scene,
    plan: m.plan,
    automaton: v.m.runAutomaton,
    session: v.m.runSession,
    replan: m.t,
  });
  addLog(
    v,
    m.t,
    `new plan: ${planSteps(m.plan).prefix} prefix, ${planSteps(m.plan).suffix} suffix waypoints, sha256 ${shortSha(m.plan_sha)}`,
    'replan',
  );
  showReplanSha(v, m.t, m.plan_sha);
}

/** One event of the run this window shows, once (a snapshot may already hold it). */
function applyEvent(v: View, m: MissionEvent): void {
  if (!isNewEvent(v.m, m)) return;
  v.m = eventApplied(v.m, m.seq);
  switch (m.topic) {
    case 'mission.tick':
      showTick(v, m);
      if (v.trail.length % 10 === 0) v.graph?.setTrail(v.trail);
      break;
    case 'mission.state':
      v.m = stateChanged(v.m, m.state);
      render(v);
      break;
    case 'mission.event':
      addLog(v, m.t, m.detail, m.kind);
      break;
    case 'mission.replan':
      showReplan(v, m);
      break;
    case 'mission.end':
      showEnd(v, m, true);
      break;
    case 'mission.escalation':
      break; // the shell's dialog answers it, in every window
  }
}

/** The summary of a run this window did not plan: the plan on the screen is the run's. */
function showJoined(v: View, l: MissionLive): void {
  const { d } = v;
  fillHeat(d.heat, l.scene.propositions);
  const lines = joinedLines(l);
  d.summary.replaceChildren(
    el('div', { class: `plan-status ${l.plan.status}`, id: 'plan-joined' }, 'The mission running now'),
    el('div', {}, lines.detail),
    el('div', { class: 'muted' }, lines.note),
    shaLine('plan-sha', 'the plan it started with', l.shown_sha, shortSha(l.shown_sha)),
  );
}

/** Shows a run from its snapshot: what it runs, where it stands, what happened so far. */
function adopt(v: View, l: MissionLive): void {
  const { a, d } = v;
  const { model, own } = adopted(v.m, l);
  v.m = model;
  d.logPanel.clear();
  d.plots.reset();
  v.trail.length = 0;
  // An earlier run's replan on the screen: the plan this run executes is drawn again.
  const earlierReplan = d.summary.querySelector('#plan-replan-sha') !== null;
  d.summary.querySelector('#plan-replan-sha')?.remove();
  if (!own || l.replannedAt !== null || earlierReplan) {
    try {
      drawMission(v.graph, own ? null : v.automaton, l.scene, l.plan, own ? null : l.automaton);
    } catch (err) {
      d.errors.textContent = `the running mission's plan: ${errorText(err)}`;
    }
  }
  if (!own) showJoined(v, l);
  if (l.replannedAt !== null) showReplanSha(v, l.replannedAt, l.plan_sha);
  a.post({
    kind: 'scene',
    scene: l.scene,
    plan: l.plan,
    automaton: l.automaton,
    session: l.session,
    ...(l.replannedAt !== null ? { replan: l.replannedAt } : {}),
  });
  addLog(
    v,
    0,
    `run started${l.auditRun !== null ? ` (audit run ${l.auditRun})` : ''}: executing the plan shown, sha256 ${shortSha(l.shown_sha)}`,
  );
  for (const e of l.events) addLog(v, e.t, e.detail, e.kind);
  const last = l.ticks[l.ticks.length - 1];
  // Each past tick once (the plots count what they received), then the newest shown as now.
  for (const t of l.ticks) recordTick(v, t);
  a.post({ kind: 'trail', points: [...v.trail], ended: false, auditRun: l.auditRun });
  if (last !== undefined) presentTick(v, last);
  else d.live.textContent = '';
  v.graph?.setTrail(v.trail);
  render(v);
  if (l.end !== null) showEnd(v, l.end, false);
  if (l.escalation !== null) a.post({ kind: 'escalation', run: l.run, escalation: l.escalation });
}

/** Joins runs as they start (in any window) and follows the one shown; the E-STOP latch too. */
export function followRuns(v: View): void {
  const { a } = v;
  // Joining: the snapshot, then the events that came after it (held while the snapshot is on its way).
  let joining: MissionEvent[] | null = null;
  /** Runs that are not missions (the tool loop's runs send mission.state and escalations too). */
  const notMissions = new Set<string>();
  v.join = (hint, first) => {
    if (joining !== null) return;
    joining = first !== undefined ? [first] : [];
    a.api.missionLive().then(
      ({ mission: l }) => {
        const held = joining ?? [];
        joining = null;
        if (hint !== null && l?.run !== hint) notMissions.add(hint);
        // The run asked about, or one running now; a window opened after a run ended keeps its own screen.
        if (l !== null && l.run !== v.m.run && (l.run === hint || isActive(l.state))) adopt(v, l);
        for (const m of held) applyEvent(v, m);
      },
      (err: unknown) => {
        joining = null;
        v.d.errors.textContent = `the running mission: ${errorText(err)}`;
      },
    );
  };
  v.join(null);
  a.onEvent((e) => {
    if (e.topic === 'estop') {
      v.m = latchChanged(v.m, e.state.latched);
      render(v);
      return;
    }
    if (!e.topic.startsWith('mission.')) return;
    const m = e as MissionEvent;
    if (m.run === v.m.run) applyEvent(v, m);
    else if (joining !== null) joining.push(m);
    else if (!notMissions.has(m.run)) v.join(m.run, m);
  });
}

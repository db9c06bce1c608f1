/**
 * The detail pane of one event: what a reader looks for first in a section of its own — a tool
 * call's arguments, the verifier's expected against observed, a failure record's fields, the plan
 * before and after a replan — then the whole body as JSON.
 */
import type { AuditEventDetail, AuditPlanDiff, AuditPlanDoc } from '../../../main/contract/api.js';
import { el } from '../app.js';

const pretty = (v: unknown): string => JSON.stringify(v, null, 2) ?? 'null';
/** A body field as text: strings as they are, anything else as JSON, nothing as ''. */
const txt = (...vs: unknown[]): string => {
  const v = vs.find((x) => x !== undefined && x !== null);
  return typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v);
};
const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function section(id: string, title: string, ...children: (Node | string)[]): HTMLElement {
  return el('section', { class: 'ad-section', id }, el('h4', {}, title), ...children);
}

function json(v: unknown, cls = ''): HTMLElement {
  return el('pre', { class: `ad-json ${cls}` }, pretty(v));
}

/** Field → value rows; long numeric vectors (latents) are folded. */
function fields(o: Record<string, unknown>, id = ''): HTMLElement {
  const t = el('table', { class: 'ad-fields', ...(id ? { id } : {}) });
  for (const [k, v] of Object.entries(o)) {
    let text: string;
    if (Array.isArray(v) && v.length > 8 && v.every((x) => typeof x === 'number'))
      text = `[${v.length} numbers: ${v
        .slice(0, 4)
        .map((x) => x.toFixed(3))
        .join(', ')}, …]`;
    else text = typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
    t.append(el('tr', { 'data-field': k }, el('th', {}, k), el('td', {}, text)));
  }
  return t;
}

function planColumn(title: string, p: AuditPlanDoc | null): HTMLElement {
  if (p === null)
    return el('div', { class: 'ad-plan' }, el('h5', {}, title), el('p', { class: 'muted' }, 'none recorded'));
  const cost =
    p.cost !== null
      ? `objective ${p.cost.objective.toFixed(2)} (prefix ${p.cost.prefix.toFixed(1)}, suffix ${p.cost.suffix.toFixed(1)})`
      : 'no cost';
  return el(
    'div',
    { class: 'ad-plan', 'data-seq': String(p.seq) },
    el('h5', {}, `${title}: #${p.seq} ${p.trigger}${p.step !== null ? ` at step ${p.step}` : ''}`),
    el('p', {}, `${p.status}, ${cost}`),
    el(
      'p',
      { class: 'muted ad-plan-sha', 'data-sha': p.sha, title: `sha256 ${p.sha}` },
      `${p.method}, sha256 ${p.sha.slice(0, 12)}…`,
    ),
    el('p', { class: 'ad-nodes' }, el('b', {}, 'prefix '), p.prefix.join(' → ')),
    el('p', { class: 'ad-nodes' }, el('b', {}, 'suffix '), p.suffix.join(' → ')),
  );
}

function diffList(id: string, title: string, ops: AuditPlanDiff['prefix']): HTMLElement {
  const changed = ops.filter((o) => o.op !== '=').length;
  return el(
    'div',
    { class: 'ad-diff', id },
    el(
      'h5',
      {},
      `${title}: ${changed === 0 ? 'unchanged' : `${ops.filter((o) => o.op === '-').length} dropped, ${ops.filter((o) => o.op === '+').length} added`}`,
    ),
    el(
      'ol',
      {},
      ...ops.map((o) =>
        el(
          'li',
          { class: o.op === '=' ? 'op-same' : o.op === '+' ? 'op-plus' : 'op-minus', 'data-op': o.op },
          `${o.op === '=' ? ' ' : o.op} ${o.node}`,
        ),
      ),
    ),
  );
}

/** The sections an event of its kind has, beside its header and its body. */
function kindSections(d: AuditEventDetail, b: Record<string, unknown>): HTMLElement[] {
  const r = d.row;
  const parts: HTMLElement[] = [];
  switch (r.kind) {
    case 'tool_call':
      parts.push(
        section(
          'audit-sec-call',
          'Tool call',
          el(
            'p',
            {},
            el('b', {}, txt(b['tool'], r.tool, '?')),
            b['timeout_s'] !== undefined ? ` (timeout ${txt(b['timeout_s'])} s)` : '',
          ),
          el('h5', {}, 'Arguments'),
          json(b['arguments'] ?? b['args'] ?? null, 'ad-args'),
          ...(b['response'] !== undefined ? [el('h5', {}, 'Response'), json(b['response'])] : []),
        ),
      );
      break;
    case 'verifier_result':
      parts.push(
        section(
          'audit-sec-evidence',
          'Verifier evidence',
          el(
            'p',
            { class: b['pass'] === true ? 'ok' : 'bad' },
            `${txt(b['postcondition'])}: ${b['pass'] === true ? 'PASS' : 'FAIL'}`,
          ),
          el(
            'div',
            { class: 'ad-evidence' },
            el(
              'div',
              { class: 'ad-expected' },
              el('h5', {}, 'Expected'),
              el('pre', { class: 'ad-json' }, txt(b['expr'])),
            ),
            el('div', { class: 'ad-observed' }, el('h5', {}, 'Observed'), json(b['observed'] ?? null)),
          ),
        ),
      );
      break;
    case 'evidence':
      parts.push(
        section(
          'audit-sec-evidence',
          'Verifier evidence',
          el(
            'p',
            { class: b['failure_label'] ? 'bad' : 'ok' },
            `${txt(b['verifier'])}${b['failure_label'] ? ` → ${txt(b['failure_label'])}` : ''}`,
          ),
          el(
            'div',
            { class: 'ad-evidence' },
            el(
              'div',
              { class: 'ad-expected' },
              el('h5', {}, 'Expected'),
              json(b['instruction'] ?? null),
              ...(b['action'] !== undefined ? [el('p', { class: 'muted' }, `action ${txt(b['action'])}`)] : []),
            ),
            el('div', { class: 'ad-observed' }, el('h5', {}, 'Observed'), json(b['state'] ?? null)),
          ),
        ),
      );
      break;
    case 'failure_record':
      parts.push(section('audit-sec-failure', 'Failure record', fields(b, 'audit-failure-fields')));
      break;
    case 'replan':
    case 'plan':
      if (r.kind === 'replan') parts.push(section('audit-sec-replan', 'Replan', fields(b)));
      if (d.plans !== undefined) {
        parts.push(
          section(
            'audit-sec-plans',
            'Plan before and after',
            ...(d.plans.note !== undefined ? [el('p', { class: 'muted' }, d.plans.note)] : []),
            el('div', { class: 'ad-plans' }, planColumn('Before', d.plans.before), planColumn('After', d.plans.after)),
            diffList('audit-diff-prefix', 'Prefix', d.plans.prefix),
            diffList('audit-diff-suffix', 'Suffix', d.plans.suffix),
          ),
        );
      }
      break;
    case 'escalation':
      parts.push(
        section(
          'audit-sec-escalation',
          'Escalation',
          el('p', {}, txt(b['message'], b['reason'])),
          el('h5', {}, 'Failures that led here'),
          json(b['failures'] ?? []),
        ),
      );
      break;
    case 'monitor_event':
    case 'run_end':
    case 'operator_decision':
    case 'checkpoint':
      parts.push(section('audit-sec-fields', 'Fields', fields(b)));
      break;
    case 'run_start':
      if (d.blobs['spec'] !== undefined)
        parts.push(section('audit-sec-spec', 'Specification', el('pre', { class: 'ad-json' }, txt(d.blobs['spec']))));
      if (d.blobs['regions'] !== undefined)
        parts.push(section('audit-sec-regions', 'Regions', json(d.blobs['regions'])));
      break;
  }
  return parts;
}

export function renderDetail(root: HTMLElement, d: AuditEventDetail, runStart_ms: number): void {
  const b = obj(d.body);
  const r = d.row;
  const parts: HTMLElement[] = [
    el(
      'header',
      { class: 'ad-head' },
      el('h3', { id: 'audit-detail-title' }, `#${r.id} ${r.kind}`),
      el(
        'p',
        { class: 'muted' },
        `${new Date(r.t_ms).toISOString()} (+${((r.t_ms - runStart_ms) / 1000).toFixed(3)} s)${r.step !== null ? `, step ${r.step}` : ''}${r.tool ? `, tool ${r.tool}` : ''}${r.failureLabel ? `, failure ${r.failureLabel}` : ''}`,
      ),
      el('p', { class: 'muted ad-hash', title: `prev ${d.prev_hash}` }, `hash ${d.hash.slice(0, 16)}…`),
    ),
  ];
  parts.push(...kindSections(d, b));
  parts.push(
    section('audit-sec-body', 'Body (JSON)', el('pre', { class: 'ad-json', id: 'audit-detail-json' }, pretty(d.body))),
  );
  root.replaceChildren(...parts);
}

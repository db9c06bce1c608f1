/**
 * Node ids in text (failure records say `tracking c29 → c347 timed out`) made into links that open
 * the Graph tab centred on the node. The text stays the same; only the ids become buttons.
 */
import type { AuditReplay, AutomatonView, GraphScene, PlanView } from '../../../main/contract/api.js';
import { el } from '../app.js';

/**
 * Graph node ids as the planner names them: latent clusters `c12`, anchors `anchor:e1:0`, product
 * states `c12@q3` — standing alone, not inside a longer token (a run id's `…-c072-…`, a hash).
 */
const NODE_ID = /(?<![\w:@.-])(?:c(?:0|[1-9]\d*)|anchor:[A-Za-z_][A-Za-z0-9_]*:\d+)(?:@q\d+)?(?![\w:@-])/g;

/** Wraps every node id in the text under `root` in a button.node-link[data-node] that calls `open(id)`. */
export function linkNodes(root: HTMLElement, open: (id: string) => void): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    // Not inside a link already made, nor inside editable fields.
    acceptNode: (n) =>
      n.parentElement?.closest('.node-link, textarea, input, button')
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  });
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) texts.push(n as Text);
  for (const t of texts) {
    const s = t.data;
    const hits = [...s.matchAll(NODE_ID)];
    if (hits.length === 0) continue;
    const parts: (Node | string)[] = [];
    let at = 0;
    for (const m of hits) {
      const id = m[0];
      if (m.index > at) parts.push(s.slice(at, m.index));
      const b = el(
        'button',
        { type: 'button', class: 'node-link', 'data-node': id, title: `Show ${id} on the Graph tab` },
        id,
      );
      b.addEventListener('click', (e) => {
        e.preventDefault();
        e.stopPropagation();
        open(id);
      });
      parts.push(b);
      at = m.index + id.length;
    }
    if (at < s.length) parts.push(s.slice(at));
    t.replaceWith(...parts);
  }
}

/** An audit replay's scene with the plan in force at `at` (the first plan before any), for a node link to show. */
export function replayScene(
  r: AuditReplay,
  at: number,
): { scene: GraphScene; plan: PlanView | null; automaton: AutomatonView | null } {
  let plan: PlanView | null = r.plans[0]?.plan ?? null;
  for (const p of r.plans) if (p.at <= at) plan = p.plan;
  return { scene: r.scene, plan, automaton: r.automaton };
}

/** The formulas the SAGAS paper discusses by name (§4.3 Eq. 6, Appendix I), plus the project page's "hard giant". */
export const CASE_STUDIES: readonly { readonly id: string; readonly title: string; readonly formula: string }[] = [
  {
    id: 'eq6',
    title: 'Eq. 6: infinite patrol, sequential visit, conditional safety',
    formula: 'G (F (e1 & F (e2 & F e3))) & F (e4 & F (e5 & F e6)) & (!e5 U e7)',
  },
  {
    id: 'disj',
    title: 'Eq. I.1 φ_disj: disjunctive witnesses',
    formula: 'F (e4 | e5) & G (F e0 & F (e1 | e2) & F e3)',
  },
  {
    id: 'rec',
    title: 'Eq. I.2 φ_rec: prefix then recurrent patrol',
    formula: 'F (e1 & F e2) & G F (e3 & F (e4 & F e5))',
  },
  {
    id: 'neg',
    title: 'Eq. I.2 φ_neg: avoidance and not-until',
    formula: 'G !e6 & (!e4 U (e1 | e2)) & F e4 & G (F e3 & F e5)',
  },
  {
    id: 'mix',
    title: 'Eq. I.2 φ_mix: long ordered prefix, recurrent suffix, global avoidance',
    formula: 'G !e6 & F (e1 & F (e8 & F (e2 & F e7))) & G F (e3 & F (e4 & F e5))',
  },
  {
    id: 'mode',
    title: 'Eq. I.2 φ_mode: two mode switches and a patrol',
    formula: '(!e1 U (e3 | e4)) & F e1 & (!e6 U (e7 | e8)) & F e6 & G F (e2 & F e5)',
  },
  {
    id: 'giant',
    title: 'project page: antmaze-giant "hard" task',
    formula:
      'F e0 & (!e0 U e6) & F (e0 | e4 | e2) & F e2 & F e4 & F e3 & F e5 & (!e2 U e4) & (!e2 U e3) & (!e2 U e5) & G (F e2 & F e4 & F e0 & F e5)',
  },
];

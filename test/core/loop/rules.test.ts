import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { RULES_SCHEMA, expandRule, registerRules } from '../../../main/core/loop/rules.js';
import { printLtl } from '../../../main/core/ltl/printer.js';
import { InputError } from '../../../main/core/input/json.js';
import { VOCAB, tools } from './step-world.js';

export const RULES = {
  propositions: {
    holding: 'gripper.holding != ""',
    picking: 'call.tool == "pick"',
    placing: 'call.tool == "place"',
    mug_on_tray: 'objects.red_mug.on == "tray"',
  },
  rules: [
    { name: 'place_after_pick', ltl: 'G (picking -> X (!picking U placing))' },
    { name: 'tray_soon', ltl: 'F[<=3] mug_on_tray' },
  ],
};

const register = (doc: unknown, text?: string): ReturnType<typeof registerRules> =>
  registerRules(doc, 'r.rules.json', tools(), VOCAB, text);

const rejects = (doc: unknown, where: RegExp, message: RegExp): void => {
  const text = JSON.stringify(doc, null, 2);
  assert.throws(
    () => register(JSON.parse(text), text),
    (e: unknown) => e instanceof InputError && where.test(`${e.file} ${e.path}`) && message.test(e.detail),
  );
};

test('a rules file registers: propositions over the state and the call, LTL rules, the counting macro expanded', () => {
  const set = register(RULES);
  assert.deepEqual(
    set.propositions.map((p) => p.name),
    ['holding', 'picking', 'placing', 'mug_on_tray'],
  );
  assert.deepEqual(
    set.rules.map((r) => r.name),
    ['place_after_pick', 'tray_soon'],
  );
  assert.equal(set.rules[1]!.expanded, printLtl(expandRule('mug_on_tray | X mug_on_tray | X X mug_on_tray')));
  assert.ok(set.rules.every((r) => r.automaton.states.length > 0));
});

test('the counting macro: nested X per call, inside other operators, plain F untouched; bounds checked', () => {
  assert.equal(printLtl(expandRule('G F[<=2] a')), printLtl(expandRule('G (a | X a)')));
  assert.equal(printLtl(expandRule('F a & F[<=1] b & F c')), printLtl(expandRule('F a & b & F c')));
  assert.equal(printLtl(expandRule('G (a -> F[<=3](b))')), printLtl(expandRule('G (a -> (b | X b | X X b))')));
  assert.throws(() => expandRule('F[<=0] a'), /bound is a number of calls from 1 to 64/);
  assert.throws(() => expandRule('F[<=65] a'), /from 1 to 64/);
});

test('registration errors name the file, the JSON path and the line, with did-you-mean', () => {
  rejects({ ...RULES, rule: [] }, /r\.rules\.json:\d+ \$\.rule$/, /unknown field "rule" \(did you mean rules\?\)/);
  rejects(
    { ...RULES, rules: [{ name: 'x', ltll: 'G holding' }] },
    /r\.rules\.json:\d+ \$\.rules\[0\]\.ltll/,
    /unknown field "ltll" \(did you mean ltl\?\)/,
  );
  rejects(
    { ...RULES, rules: [{ name: 'x', ltl: 'G !holdng' }] },
    /:\d+ \$\.rules\[0\]\.ltl$/,
    /unknown proposition "holdng" \(did you mean holding\?\)/,
  );
  rejects(
    { ...RULES, propositions: { ...RULES.propositions, moving: 'call.tool == "navgate"' } },
    /\$\.propositions\.moving/,
    /"navgate", which is no registered tool; the tools are pick, place/,
  );
  rejects(
    { ...RULES, propositions: { ...RULES.propositions, heavy: 'objects.red_mug.mass_kg > 1.0' } },
    /\$\.propositions\.heavy/,
    /no tool can change it: it reads objects\.red_mug\.mass_kg/,
  );
  rejects(
    { ...RULES, propositions: { ...RULES.propositions, wide: 'gripper.widht_cm > 1.0' } },
    /\$\.propositions\.wide/,
    /unknown field "gripper\.widht_cm" \(did you mean gripper\.width_cm\?\)/,
  );
  rejects({ ...RULES, rules: [{ name: 'x', ltl: 'G (holding' }] }, /\$\.rules\[0\]\.ltl/, /expected/);
  rejects(
    { ...RULES, rules: [RULES.rules[0], RULES.rules[0]] },
    /\$\.rules\[1\]\.name/,
    /a rule named "place_after_pick" is already defined/,
  );
  rejects(
    { ...RULES, rules: [{ name: 'never', ltl: 'G holding & F !holding' }] },
    /\$\.rules\[0\]\.ltl/,
    /rule "never" can never hold/,
  );
  rejects({ ...RULES, propositions: { Bad: 'true' } }, /\$\.propositions/, /"Bad" is no proposition name/);
});

test('the line is the line of the offending member', () => {
  const text = JSON.stringify({ ...RULES, rules: [{ name: 'x', ltl: 'G !holdng' }] }, null, 2);
  const line = text.split('\n').findIndex((l) => l.includes('holdng')) + 1;
  assert.throws(
    () => register(JSON.parse(text), text),
    (e: unknown) => e instanceof InputError && e.file === `r.rules.json:${line}`,
  );
});

test('two rules that cannot both hold are refused at registration, both named, at the later one', () => {
  const conflict = (rules: { name: string; ltl: string }[], message: RegExp): void =>
    rejects({ propositions: RULES.propositions, rules }, /^r\.rules\.json:\d+ \$\.rules\[\d+\]\.ltl$/, message);
  conflict(
    [
      { name: 'never_place', ltl: 'G !placing' },
      { name: 'place_often', ltl: 'G F[<=3] placing' },
    ],
    /^rules "never_place" and "place_often" cannot both hold: no sequence of calls satisfies G !placing and G F\[<=3\] placing together$/,
  );
  // Only because a call is of one tool: picking and placing never hold together.
  conflict(
    [
      { name: 'tray_soon', ltl: 'F[<=3] mug_on_tray' },
      { name: 'always_pick', ltl: 'G picking' },
      { name: 'place_next', ltl: 'X placing' },
    ],
    /^rules "always_pick" and "place_next" cannot both hold/,
  );
  const text = JSON.stringify(
    {
      propositions: RULES.propositions,
      rules: [
        { name: 'a', ltl: 'G picking' },
        { name: 'b', ltl: 'F placing' },
      ],
    },
    null,
    2,
  );
  assert.throws(
    () => register(JSON.parse(text), text),
    (e: unknown) =>
      e instanceof InputError &&
      e.file === `r.rules.json:${text.split('\n').findIndex((l) => l.includes('"F placing"')) + 1}`,
  );
  // Propositions that need not exclude each other do not conflict: holding while picking, the shipped rules.
  register({
    propositions: RULES.propositions,
    rules: [
      { name: 'a', ltl: 'G picking' },
      { name: 'b', ltl: 'G holding' },
    ],
  });
  register(RULES);
});

test('docs/schemas/rules.schema.json is the published schema', () => {
  const published: unknown = JSON.parse(
    readFileSync(new URL('../../../../docs/schemas/rules.schema.json', import.meta.url), 'utf8'),
  );
  assert.deepEqual(published, RULES_SCHEMA);
});

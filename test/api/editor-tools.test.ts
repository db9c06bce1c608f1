import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createDirectApi } from '../../main/api/direct.js';
import type { Diagnostic } from '../../main/contract/api.js';
import { InputError } from '../../main/core/input/json.js';
import { parseTool, registerTools } from '../../main/core/loop/tools.js';
import { TABLETOP_VOCABULARY } from '../../main/backends/mujoco/tabletop.js';
import { checkToolText } from '../../main/services/editor/tool-check.js';

const PICK = readFileSync(new URL('../../../assets/tools/pick.json', import.meta.url), 'utf8');
const PLACE = readFileSync(new URL('../../../assets/tools/place.json', import.meta.url), 'utf8');

/** The text a diagnostic covers (single-line ranges). */
function covered(text: string, d: Diagnostic): string {
  assert.equal(d.startLine, d.endLine, d.message);
  return text.split('\n')[d.startLine - 1]!.slice(d.startColumn - 1, d.endColumn - 1);
}

const check = (text: string, world = 'tabletop'): Diagnostic[] => checkToolText(text, TABLETOP_VOCABULARY, world);

test('toolCheck: the shipped tools are clean in the tabletop world', async () => {
  const api = createDirectApi();
  assert.deepEqual((await api.toolCheck({ text: PICK, world: 'tabletop' })).diagnostics, []);
  assert.deepEqual((await api.toolCheck({ text: PLACE, world: 'tabletop' })).diagnostics, []);
});

test('toolCheck: a misspelled field in a CEL condition is marked on the name itself, with a suggestion', () => {
  const text = PICK.replace('"gripper.width_cm > 1.5"', '"gripper.widht_cm > 1.5"');
  const [d, ...rest] = check(text);
  assert.deepEqual(rest, []);
  assert.equal(d!.source, 'vocabulary');
  assert.equal(covered(text, d!), 'gripper.widht_cm');
  assert.equal(
    d!.message,
    '$.postconditions[0].expr: unknown field "gripper.widht_cm" (did you mean gripper.width_cm?)',
  );
});

test('toolCheck: names inside escaped strings, objects and their fields, and CEL parse errors get exact ranges', () => {
  const escaped = PICK.replace('"gripper.holding == \\"\\""', '"gripper.holding == \\"\\" && gripper.lod_N > 1"');
  assert.notEqual(escaped, PICK);
  const [e] = check(escaped);
  assert.equal(covered(escaped, e!), 'gripper.lod_N');
  assert.match(
    e!.message,
    /^\$\.preconditions\[0\]\.expr: unknown field "gripper\.lod_N" \(did you mean gripper\.load_N\?\)/,
  );

  const object = PICK.replace('"gripper.load_N > gripper.payload_limit_N"', '"objects.red_mgu.mass_kg > 1.0"');
  const [o] = check(object);
  assert.equal(covered(object, o!), 'red_mgu');
  assert.match(
    o!.message,
    /^\$\.failures\[2\]\.when: unknown object "red_mgu" in objects\.red_mgu\.mass_kg \(did you mean red_mug\?\)/,
  );

  const field = PICK.replace('"gripper.load_N > gripper.payload_limit_N"', '"objects.red_mug.mas_kg > 1.0"');
  const [f] = check(field);
  assert.equal(covered(field, f!), 'mas_kg');
  assert.match(f!.message, /did you mean mass_kg\?/);

  const parse = PICK.replace('"gripper.width_cm > 1.5"', '"gripper.width_cm > > 1.5"');
  const [p] = check(parse);
  assert.match(p!.message, /^\$\.postconditions\[0\]\.expr: not a CEL expression: /);
  assert.equal(covered(parse, p!).length, 1);

  const typed = PICK.replace('"gripper.width_cm > 1.5"', '"gripper.width_cm + 1.5"');
  const [t] = check(typed);
  assert.equal(covered(typed, t!), '"gripper.width_cm + 1.5"');
  assert.match(t!.message, /the condition is a number, not a boolean/);
});

test('toolCheck: skills and argument schemas are checked against the world', async () => {
  const skill = PICK.replace('"skill": "pick"', '"skill": "pik"');
  const [s] = check(skill);
  assert.equal(covered(skill, s!), '"pik"');
  assert.equal(s!.message, '$.skill: tabletop has no skill "pik" (did you mean pick?); it has pick, place, move');
  const api = createDirectApi();
  const maze = (await api.toolCheck({ text: PICK, world: 'pointmaze-medium' })).diagnostics;
  assert.ok(
    maze.some((d) => /pointmaze-medium has no skill "pick".*it has no skills/.test(d.message)),
    JSON.stringify(maze),
  );
  const args = PICK.replace('"type": "object",\n    "required"', '"type": "objekt",\n    "required"');
  assert.notEqual(args, PICK);
  const [a] = check(args);
  assert.equal(covered(args, a!), '"objekt"');
  assert.match(a!.message, /^\$\.arguments\.type: "objekt" is not one of array, .*object.* \(did you mean object\?\)$/);
});

test('toolCheck: every problem of an argument schema is reported at its own line, in plain words', () => {
  const text = PICK.replace('"target": { "type": "string"', '"target": { "type": "strng"').replace(
    '"minimum": -0.05',
    '"minimum": "low"',
  );
  // (The conditions that read the argument whose type is wrong are flagged too, after these.)
  const ds = check(text).filter((d) => d.message.startsWith('$.arguments'));
  assert.deepEqual(
    ds.map((d) => [d.startLine, covered(text, d), d.message]),
    [
      [
        11,
        '"strng"',
        '$.arguments.properties.target.type: "strng" is not one of array, boolean, integer, null, number, object, string (did you mean string?)',
      ],
      [12, '"low"', '$.arguments.properties.approach_dz.minimum: must be a number, not "low"'],
    ],
  );
  const unknown = PICK.replace('"minimum": -0.05', '"minimun": -0.05');
  const [k, ...none] = check(unknown);
  assert.deepEqual(none, []);
  assert.deepEqual(
    [k!.startLine, covered(unknown, k!), k!.message],
    [12, '"minimun"', '$.arguments: "minimun" is not a JSON Schema keyword (did you mean minimum?)'],
  );
});

test('toolCheck: every schema violation at its node; JSON syntax errors at their offset', () => {
  const text = PICK.replace('"name": "pick"', '"name": "Pick"')
    .replace('"timeout_s": 10', '"timeout_s": "10", "retries": 2')
    .replace(/"description": "Grasp[^"]*",\n/, '');
  const ds = check(text);
  const shown = ds.map((d) => `${d.source} ${d.message} [${d.startLine === d.endLine ? covered(text, d) : 'multi'}]`);
  assert.deepEqual(shown, [
    'schema $: missing required field "description" [{]',
    'schema $.name: must match pattern "^[a-z][a-z0-9_]*$" ["Pick"]',
    'schema $.timeout_s: must be number ["10"]',
    'schema $: unknown field "retries" ["retries"]',
  ]);
  const broken = '{\n  "name": "pick",\n  "skill" "pick"\n}';
  const [j, ...more] = check(broken);
  assert.equal(j!.source, 'syntax');
  assert.equal(j!.message, 'not valid JSON: colon expected');
  assert.deepEqual([j!.startLine, j!.startColumn], [3, 11]);
  assert.deepEqual(
    more.filter((d) => d.source !== 'syntax'),
    [],
  );
  assert.equal(check('')[0]!.source, 'syntax');
  assert.match(check('[1, 2]')[0]!.message, /^\$: must be object/);
});

test('toolCheck agrees with registration: whatever registerTools refuses, the editor flags at the same path', () => {
  const mutations: [string, string][] = [
    ['"skill": "pick"', '"skill": "grab"'],
    ['"gripper.width_cm > 1.5"', '"gripper.width > 1.5"'],
    ['"gripper.holding == \\"\\""', '"gripper.holding == 1"'],
    ['"gripper.width_cm <= 1.5"', '"objects.mug.on == \\"tray\\""'],
    ['"gripper.load_N <= gripper.payload_limit_N"', '"gripper.load_N"'],
    ['"type": "object",\n    "required"', '"type": 7,\n    "required"'],
    ['"gripper.width_cm > 1.5"', '"size(gripper.holding) > 0"'],
  ];
  for (const [from, to] of mutations) {
    const text = PICK.replace(from, to);
    assert.notEqual(text, PICK, from);
    let refused: InputError | null = null;
    try {
      registerTools([{ def: parseTool(JSON.parse(text), 'pick.json'), file: 'pick.json' }], TABLETOP_VOCABULARY);
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      refused = e;
    }
    assert.ok(refused !== null, `registration accepts ${to}`);
    const ds = check(text);
    assert.ok(
      // At the same path, or inside it (the editor places an argument schema's problem at its own node).
      ds.some((d) => d.message.startsWith(`${refused.path}: `) || d.message.startsWith(`${refused.path}.`)),
      `${to}: ${refused.message} vs ${JSON.stringify(ds.map((d) => d.message))}`,
    );
  }
});

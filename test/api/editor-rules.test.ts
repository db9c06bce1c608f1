// rulesCheck: a rules file in the Editors tab, checked as `witness act --rules` registers it (the same code), every
// problem at the range of the text it is about, and each first problem the one registration refuses, at its line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDirectApi } from '../../main/api/direct.js';
import type { Diagnostic } from '../../main/contract/api.js';
import { WitnessError } from '../../main/contract/errors.js';
import { registerRules } from '../../main/core/loop/rules.js';
import { registerToolFolder } from '../../main/app/act.js';
import { worldEntry } from '../../main/backends/catalogue.js';
import { assetPath } from '../../main/platform/paths.js';

const RULES = readFileSync(new URL('../../../assets/rules/warehouse.rules.json', import.meta.url), 'utf8');

function api(): { api: ReturnType<typeof createDirectApi>; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'witness-editor-rules-'));
  return { api: createDirectApi({ workspace: dir, auditFile: path.join(dir, 'audit.sqlite') }), dir };
}

/** The text a diagnostic covers. */
function covered(text: string, d: Diagnostic): string {
  const lines = text.split('\n');
  if (d.startLine !== d.endLine) return lines.slice(d.startLine - 1, d.endLine).join('\n');
  return lines[d.startLine - 1]!.slice(d.startColumn - 1, d.endColumn - 1);
}

/** What registration (`witness act --rules`) says of a text: its message, or null when it registers. */
function registration(text: string): string | null {
  const v = worldEntry('tabletop').vocabulary!;
  const tools = registerToolFolder(assetPath('tools'), v);
  try {
    registerRules(JSON.parse(text), 'x.rules.json', tools, v, text);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

test('rulesCheck: the shipped warehouse rules are clean against the shipped tools', async () => {
  const { api: a } = api();
  try {
    const r = await a.rulesCheck({ text: RULES, world: 'tabletop' });
    assert.deepEqual(r, { diagnostics: [], tools: 'shipped:tools' });
  } finally {
    await a.close();
  }
});

test('rulesCheck: every problem at once, each on the text it is about, with did-you-mean', async () => {
  const { api: a } = api();
  try {
    const text = RULES.replace('"call.tool == \\"place\\""', '"call.tool == \\"plase\\""')
      .replace('"ltl": "G !lifting_loaded_bin"', '"ltl": "G !lifting_loaded_bim"')
      .replace(
        '"bin_on_shelf": "objects.red_bin.on == \\"shelf_c4\\""',
        '"bin_on_shelf": "objects.red_bin.on == \\"shelf_c4\\"", "heavy": "objects.red_bin.mass_kg > 2"',
      )
      .replace('"ltl": "F[<=8] bin_on_shelf"', '"ltl": "F[<=8] (bin_on_shelf &"');
    const { diagnostics: d } = await a.rulesCheck({ text, world: 'tabletop' });
    assert.equal(d.length, 4, JSON.stringify(d, null, 1));
    const [plase, heavy, bim, syntax] = d as [Diagnostic, Diagnostic, Diagnostic, Diagnostic];
    assert.equal(covered(text, plase), 'plase');
    assert.match(
      plase.message,
      /^\$\.propositions\.placing: .*"plase", which is no registered tool \(did you mean place\?\)/,
    );
    assert.match(
      heavy.message,
      /^\$\.propositions\.heavy: .*no tool can change it: it reads objects\.red_bin\.mass_kg/,
    );
    assert.equal(covered(text, heavy), '"objects.red_bin.mass_kg > 2"');
    assert.equal(covered(text, bim), 'lifting_loaded_bim');
    assert.match(
      bim.message,
      /^\$\.rules\[0\]\.ltl: unknown proposition "lifting_loaded_bim" \(did you mean lifting_loaded_bin\?\)/,
    );
    assert.match(syntax.message, /^\$\.rules\[2\]\.ltl: 1:\d+: /);
    for (const x of d) assert.equal(x.severity, 'error');
    // Registration refuses the first of them, at the same line.
    const refused = registration(text)!;
    assert.ok(refused.startsWith(`x.rules.json:${plase.startLine}: `), refused);
    assert.ok(refused.includes('"plase", which is no registered tool'), refused);
  } finally {
    await a.close();
  }
});

test('rulesCheck: unknown fields at their name (schema not checked past them), the schema, JSON syntax', async () => {
  const { api: a } = api();
  try {
    const fields = RULES.replace('"ltl": "G !lifting_loaded_bin"', '"ltll": "G !lifting_loaded_bin"').replace(
      '"propositions"',
      '"propositons": {}, "propositions"',
    );
    const f = (await a.rulesCheck({ text: fields, world: 'tabletop' })).diagnostics;
    assert.deepEqual(
      f.map((x) => covered(fields, x)),
      ['"propositons"', '"ltll"'],
    );
    assert.match(f[0]!.message, /unknown field "propositons" \(did you mean propositions\?\)/);
    assert.match(f[1]!.message, /^\$\.rules\[0\]\.ltll: unknown field "ltll" \(did you mean ltl\?\)/);
    assert.equal(f[1]!.source, 'schema');
    const refused = registration(fields)!;
    assert.ok(refused.startsWith(`x.rules.json:${f[0]!.startLine}: `), refused);

    const schema = RULES.replace('"name": "place_after_pick"', '"name": 7');
    const s = (await a.rulesCheck({ text: schema, world: 'tabletop' })).diagnostics;
    assert.equal(s.length, 1);
    assert.equal(covered(schema, s[0]!), '7');
    assert.match(s[0]!.message, /^\$\.rules\[1\]\.name: /);
    assert.ok(registration(schema)!.includes(s[0]!.message.replace(/^[^ ]+ /, '')), registration(schema)!);

    const broken = RULES.replace('"rules": [', '"rules": [,');
    const j = (await a.rulesCheck({ text: broken, world: 'tabletop' })).diagnostics;
    assert.ok(j.length > 0 && j.every((x) => x.source === 'syntax' && x.message.startsWith('not valid JSON')));
  } finally {
    await a.close();
  }
});

test("rulesCheck: the workspace's tools/ are checked against when the console offers them; bad worlds refused", async () => {
  const { api: a, dir } = api();
  try {
    mkdirSync(path.join(dir, 'tools'));
    // The workspace's pick only: "place" is no registered tool there.
    writeFileSync(path.join(dir, 'tools', 'pick.json'), readFileSync(assetPath('tools/pick.json')));
    const r = await a.rulesCheck({ text: RULES, world: 'tabletop' });
    assert.equal(r.tools, 'tools');
    assert.equal(r.diagnostics.length, 2, JSON.stringify(r.diagnostics));
    assert.match(r.diagnostics[0]!.message, /"place", which is no registered tool; the tools are pick/);
    // Only place's postconditions mention where objects are.
    assert.match(r.diagnostics[1]!.message, /bin_on_shelf.*no tool can change it: it reads objects\.red_bin\.on/);
    assert.deepEqual(await a.rulesCheck({ text: RULES, world: 'tabletop', tools: 'shipped:tools' }), {
      diagnostics: [],
      tools: 'shipped:tools',
    });
    await assert.rejects(a.rulesCheck({ text: RULES, world: 'pointmaze-medium' }), (e: unknown) => {
      assert.ok(e instanceof WitnessError);
      assert.match(e.message, /"pointmaze-medium" is no tool world/);
      return true;
    });
    await assert.rejects(a.rulesCheck({ text: RULES, world: 'tabletop', tools: 'elsewhere' }), /no tool folder/);
  } finally {
    await a.close();
  }
});

/**
 * docs/foxglove/witness-layout.json against the layout format Foxglove and Lichtblick import
 * (Layouts → Import from file): `configById` of panels keyed `<type>!<id>`, a mosaic `layout` tree
 * of those keys, and the panel configs as Lichtblick's sources type them (3D RendererConfig, Log
 * panel "RosOut", Plot, RawMessages). Every topic it names is one Witness writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FOXGLOVE_CHANNELS } from '../../../main/services/audit/foxglove.js';
import { AUDIT_EVENTS } from '../../../main/contract/audit-events.js';

const layoutFile = fileURLToPath(new URL('../../../../docs/foxglove/witness-layout.json', import.meta.url));

type Tree = string | { first: Tree; second: Tree; direction: 'row' | 'column'; splitPercentage?: number };
const leaves = (t: Tree): string[] => (typeof t === 'string' ? [t] : [...leaves(t.first), ...leaves(t.second)]);

test('the Foxglove/Lichtblick layout: panels the apps know, a layout tree of its panels, topics Witness writes, the map coloured by occupancy', () => {
  const doc = JSON.parse(readFileSync(layoutFile, 'utf8')) as {
    configById: Record<string, Record<string, unknown>>;
    layout: Tree;
    globalVariables: object;
    userNodes: object;
    playbackConfig: { speed: number };
  };
  assert.deepEqual(Object.keys(doc).sort(), ['configById', 'globalVariables', 'layout', 'playbackConfig', 'userNodes']);
  const ids = Object.keys(doc.configById);
  assert.deepEqual(leaves(doc.layout).sort(), [...ids].sort(), 'every panel is placed once, and only those');
  for (const t = [doc.layout]; t.length > 0;) {
    const n = t.pop()!;
    if (typeof n === 'string') continue;
    assert.ok(n.direction === 'row' || n.direction === 'column');
    t.push(n.first, n.second);
  }
  // Built-in panel types (Lichtblick packages/suite-base/src/panels/index.ts; the same names in Foxglove).
  assert.deepEqual(ids.map((id) => id.split('!')[0]).sort(), ['3D', 'Plot', 'RawMessages', 'RosOut']);

  const written = new Set<string>([
    ...Object.values(FOXGLOVE_CHANNELS).map((c) => c.topic),
    ...Object.keys(AUDIT_EVENTS).map((k) => `/witness/${k}`),
  ]);
  const topicOf = (path: string): string => /^(\/[^.]+)/.exec(path)![1]!;

  const threeD = doc.configById['3D!witness']!;
  for (const key of [
    'cameraState',
    'followTf',
    'followMode',
    'scene',
    'publish',
    'transforms',
    'topics',
    'layers',
    'imageMode',
  ])
    assert.ok(key in threeD, `3D: ${key}`);
  assert.equal(threeD['followTf'], 'world');
  const topics = threeD['topics'] as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(topics).sort(), ['/witness/map', '/witness/robot/pose', '/witness/scene']);
  for (const [t, s] of Object.entries(topics)) {
    assert.ok(written.has(t), t);
    assert.equal(s['visible'], true, `${t} is shown (a foxglove.Grid topic is hidden by default)`);
  }
  // The map: coloured by its one field, free light and occupied dark (flat, the default, would draw it all one colour).
  assert.deepEqual(
    [
      topics['/witness/map']!['colorMode'],
      topics['/witness/map']!['colorField'],
      topics['/witness/map']!['minValue'],
      topics['/witness/map']!['maxValue'],
    ],
    ['gradient', 'occupancy', 0, 100],
  );
  assert.equal(topics['/witness/robot/pose']!['type'], 'arrow');

  const log = doc.configById['RosOut!witness']!;
  assert.equal(log['topicToRender'], '/witness/log');
  assert.ok(Array.isArray(log['searchTerms']) && typeof log['minLogLevel'] === 'number');
  const plot = doc.configById['Plot!witness']! as {
    paths: { value: string; enabled: boolean; timestampMethod: string }[];
  };
  assert.ok(plot.paths.length > 0);
  for (const p of plot.paths)
    assert.ok(
      written.has(topicOf(p.value)) && p.enabled && ['receiveTime', 'headerStamp'].includes(p.timestampMethod),
      p.value,
    );
  assert.ok(written.has(topicOf(doc.configById['RawMessages!witness']!['topicPath'] as string)));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { IDENTITY, TfBuffer, type Transform, compose, invert, yawOf } from '../../../main/backends/ros2/tf.js';
import {
  MappingError,
  buildMessage,
  quaternionFromYaw,
  readField,
  readPath,
} from '../../../main/backends/ros2/message-path.js';
import { tfMessage } from './fake-rclnodejs.js';

const finite = fc.double({ min: -50, max: 50, noNaN: true });
const transformArb = fc
  .tuple(
    finite,
    finite,
    finite,
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: 0.1, max: 1, noNaN: true }),
  )
  .map(([x, y, z, a, b, c, d]): Transform => {
    const n = Math.hypot(a, b, c, d);
    return { t: [x, y, z], q: [a / n, b / n, c / n, d / n] };
  });
const close = (a: Transform, b: Transform): boolean =>
  a.t.every((v, i) => Math.abs(v - b.t[i]!) < 1e-6) &&
  // q and −q are the same rotation.
  (a.q.every((v, i) => Math.abs(v - b.q[i]!) < 1e-6) || a.q.every((v, i) => Math.abs(v + b.q[i]!) < 1e-6));

test('transforms: T ∘ T⁻¹ = identity and composition is associative (1000 cases)', () => {
  fc.assert(
    fc.property(transformArb, transformArb, transformArb, (a, b, c) => {
      assert.ok(close(compose(a, invert(a)), IDENTITY));
      assert.ok(close(compose(compose(a, b), c), compose(a, compose(b, c))));
    }),
    { numRuns: 1000, seed: 21 },
  );
  fc.assert(
    fc.property(fc.double({ min: -3.1, max: 3.1, noNaN: true }), (yaw) => {
      const q = quaternionFromYaw(yaw);
      assert.ok(Math.abs(yawOf([q.x, q.y, q.z, q.w]) - yaw) < 1e-9);
    }),
    { numRuns: 200, seed: 22 },
  );
});

test('the TF buffer links frames through their common ancestor, knows static links never go stale, and says what is missing', () => {
  const tf = new TfBuffer();
  assert.deepEqual(tf.lookup('map', 'base_link', 0, 1), {
    ok: false,
    kind: 'missing',
    why: 'no transform map ← base_link; no transform has been received',
  });
  tf.ingest(tfMessage('map', 'odom', 1, 2, Math.PI / 2), false, 0);
  tf.ingest(tfMessage('/odom', 'base_link', 1, 0), false, 0);
  tf.ingest(tfMessage('base_link', 'camera', 0, 0.5), true, 0);
  const r = tf.lookup('map', 'base_link', 0.5, 1);
  assert.ok(r.ok);
  // odom is rotated a quarter turn in map: 1 m forward in odom is +y in map.
  assert.ok(Math.abs(r.transform.t[0] - 1) < 1e-9 && Math.abs(r.transform.t[1] - 3) < 1e-9);
  assert.ok(Math.abs(yawOf(r.transform.q) - Math.PI / 2) < 1e-9);
  const cam = tf.lookup('camera', 'odom', 0.5, 1);
  // The camera sits 1 m ahead of odom's origin and 0.5 m to the left: odom is behind and to its right.
  assert.ok(cam.ok && Math.abs(cam.transform.t[0] + 1) < 1e-9 && Math.abs(cam.transform.t[1] + 0.5) < 1e-9);
  assert.deepEqual(tf.lookup('map', 'base_link', 1.5, 1), {
    ok: false,
    kind: 'stale',
    link: { parent: 'odom', child: 'base_link' },
    why: 'the transform map ← base_link is 1.50 s old (bound 1 s): nothing new on odom → base_link',
  });
  // The link that went quiet is named: odometry goes on, map → odom (AMCL's, once per scan) stops.
  tf.ingest(tfMessage('odom', 'base_link', 1.2, 0), false, 1.4);
  assert.deepEqual(tf.lookup('map', 'base_link', 1.5, 1), {
    ok: false,
    kind: 'stale',
    link: { parent: 'map', child: 'odom' },
    why: 'the transform map ← base_link is 1.50 s old (bound 1 s): nothing new on map → odom',
  });
  assert.ok(tf.lookup('base_link', 'camera', 100, 1).ok, 'static links do not age');
  assert.equal(
    tf.ingest(
      {
        transforms: [
          {
            header: { frame_id: 'a' },
            child_frame_id: 'b',
            transform: { translation: { x: NaN, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0, w: 1 } },
          },
        ],
      },
      false,
      0,
    ),
    0,
  );
  assert.deepEqual(tf.links(), ['map → odom', 'odom → base_link', 'base_link → camera (static)']);
});

test('message paths: fields, indices, a joint by name in typed arrays, and why a value is missing', () => {
  const js = { name: ['wheel', 'finger'], position: Float64Array.of(1.5, 0.02), effort: [] };
  assert.deepEqual(readPath(js, 'position[name=finger]'), { ok: true, value: 0.02 });
  assert.deepEqual(readPath(js, 'position[1]'), { ok: true, value: 0.02 });
  assert.deepEqual(readPath(js, 'effort[name=finger]'), { ok: false, why: 'effort[1] is past its end (0 elements)' });
  assert.deepEqual(readPath(js, 'position[name=thumb]'), { ok: false, why: '"thumb" is not in name (wheel, finger)' });
  assert.deepEqual(readPath({ a: { b: 1 } }, 'a.c'), { ok: false, why: 'no field "a.c"' });
  assert.deepEqual(readField(js, { path: 'position[name=finger]', scale: 200 }), { ok: true, value: 4 });
  assert.deepEqual(readField({ s: 1 }, { path: 's', type: 'bool' }), { ok: true, value: true });
  assert.deepEqual(readField({ n: 3n }, { path: 'n' }), { ok: true, value: 3 });
  assert.deepEqual(readField({ s: 'x' }, { path: 's' }), { ok: false, why: 's is a string, not a number' });
});

test('goals from arguments: constants, arguments with defaults and scales, yaw to a quaternion; bad arguments are MappingErrors', () => {
  const m = {
    'pose.header.frame_id': { value: 'map' },
    'pose.pose.position.x': { arg: 'x' },
    'pose.pose.orientation': { yaw_to_quaternion: 'yaw' },
    speed: { arg: 'speed_cm_s', default: 10, scale: 0.01 },
  } as const;
  assert.deepEqual(buildMessage(m, { x: 2, yaw: 0 }), {
    pose: { header: { frame_id: 'map' }, pose: { position: { x: 2 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } },
    speed: 0.1,
  });
  assert.throws(
    () => buildMessage(m, {}),
    (e: unknown) => e instanceof MappingError && /missing argument "x"/.test(e.message),
  );
  assert.throws(() => buildMessage(m, { x: 1, speed_cm_s: 'fast' }), /must be a finite number/);
  assert.throws(() => buildMessage(m, [1]), /must be an object/);
});

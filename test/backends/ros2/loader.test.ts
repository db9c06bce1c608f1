import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeAvailability, loadRclnodejs } from '../../../main/backends/ros2/rclnodejs-loader.js';
import { FakeRclnodejs } from './fake-rclnodejs.js';
import { readFileSync } from 'node:fs';

const missing = (name: string): never => {
  throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
};
const installed = (name: string): string => `/lab/node_modules/${name}`;
const failing = (e: Error) => (): Promise<unknown> => Promise.reject(e);

test('without ROS_DISTRO: "ROS 2 is not sourced" with the source command, and whether rclnodejs is installed; the native module is not loaded', async () => {
  let imported = false;
  const importer = (): Promise<unknown> => {
    imported = true;
    return Promise.resolve({});
  };
  const a = await loadRclnodejs({ env: {}, importer, resolver: missing });
  assert.ok(!a.ok);
  assert.equal(a.problem, 'not-sourced');
  assert.equal(
    describeAvailability(a),
    'ROS 2 is not sourced (ROS_DISTRO is not set): run `source /opt/ros/<distro>/setup.bash` (<distro>: humble or jazzy) before starting Witness; rclnodejs is not installed either: `npm install rclnodejs` after sourcing ROS 2, then `node native/rebuild.js` for Electron',
  );
  const b = await loadRclnodejs({ env: { ROS_DISTRO: ' ' }, importer, resolver: installed });
  assert.ok(!b.ok && b.problem === 'not-sourced' && !/not installed/.test(b.fix));
  assert.equal(imported, false);
  // This machine has neither (the test suite runs without ROS 2): the real loader says so.
  if (process.env['ROS_DISTRO'] === undefined) assert.equal((await loadRclnodejs()).ok, false);
});

test('with ROS_DISTRO: not installed, an ABI mismatch, missing ROS libraries, a broken install, an incompatible version — each with its fix', async () => {
  const env = { ROS_DISTRO: 'jazzy' };
  const notFound = Object.assign(
    new Error("Cannot find package 'rclnodejs' imported from /app/dist/main/backends/ros2/rclnodejs-loader.js"),
    { code: 'ERR_MODULE_NOT_FOUND' },
  );
  const a = await loadRclnodejs({ env, importer: failing(notFound), resolver: missing });
  assert.equal(
    describeAvailability(a),
    'rclnodejs is not installed: `npm install rclnodejs` after sourcing ROS 2, then `node native/rebuild.js` for Electron',
  );
  const abi = new Error(
    "The module '/app/node_modules/rclnodejs/build/Release/rclnodejs.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 139.",
  );
  const b = await loadRclnodejs({ env, importer: failing(abi), resolver: installed });
  assert.ok(!b.ok && b.problem === 'abi-mismatch');
  assert.match(
    describeAvailability(b),
    /NODE_MODULE_VERSION 115.*`npm rebuild rclnodejs` for Node .*`node native\/rebuild\.js` for the desktop app \(Electron\)/,
  );
  const dl = Object.assign(new Error('librcl.so: cannot open shared object file: No such file or directory'), {
    code: 'ERR_DLOPEN_FAILED',
  });
  const c = await loadRclnodejs({ env, importer: failing(dl), resolver: installed });
  assert.ok(!c.ok && c.problem === 'load-failed');
  assert.match(c.fix, /run `source \/opt\/ros\/jazzy\/setup\.bash` in this shell/);
  const inner = Object.assign(new Error("Cannot find module 'bindings'"), { code: 'MODULE_NOT_FOUND' });
  const d = await loadRclnodejs({ env, importer: failing(inner), resolver: installed });
  assert.ok(
    !d.ok && d.problem === 'load-failed',
    'a dependency of rclnodejs missing is a broken install, not "not installed"',
  );
  const e = await loadRclnodejs({
    env,
    importer: () => Promise.resolve({ default: { init: () => undefined } }),
    resolver: missing,
  });
  assert.ok(!e.ok && e.problem === 'incompatible');
  assert.match(
    describeAvailability(e),
    /lacks Node, shutdown, isShutdown, ActionClient, QoS, removeSignalHandlers: .*npm install rclnodejs@\^1\.9\.0`$/,
  );
  // The hint names the version package.json requires.
  const manifest = JSON.parse(readFileSync(new URL('../../../../package.json', import.meta.url), 'utf8')) as {
    optionalDependencies: { rclnodejs: string };
  };
  assert.ok(describeAvailability(e).endsWith(`npm install rclnodejs@${manifest.optionalDependencies.rclnodejs}\``));
});

test('a loadable rclnodejs (CommonJS default export) is returned with the distro; an untested distro is noted', async () => {
  const fake = new FakeRclnodejs();
  const a = await loadRclnodejs({
    env: { ROS_DISTRO: 'humble' },
    importer: () => Promise.resolve({ default: fake.module }),
    resolver: missing,
  });
  assert.ok(a.ok);
  assert.equal(a.rcl, fake.module);
  assert.equal(describeAvailability(a), 'ROS 2 humble with rclnodejs (version unknown)');
  const b = await loadRclnodejs({
    env: { ROS_DISTRO: 'kilted' },
    importer: () => Promise.resolve(fake.module),
    resolver: missing,
  });
  assert.ok(b.ok && b.notes.length === 1);
  assert.match(describeAvailability(b), /built and documented for humble and jazzy/);
});

test('loading rclnodejs installs its SIGINT handler (it shuts every context down); the loader removes it, so Witness owns Ctrl-C', async () => {
  const fake = new FakeRclnodejs();
  const before = process.listenerCount('SIGINT');
  const a = await loadRclnodejs({
    env: { ROS_DISTRO: 'jazzy' },
    importer: () => Promise.resolve({ default: fake.load() }),
    resolver: missing,
  });
  assert.ok(a.ok);
  assert.equal(fake.signalHandlerInstalled, false, "rclnodejs's handler is gone");
  assert.equal(process.listenerCount('SIGINT'), before);
  // What the handler would have done: a shutdown destroys the node and its action clients at once.
  const other = new FakeRclnodejs();
  const mod = other.load();
  assert.equal(other.signalHandlerInstalled, true);
  await mod.init();
  const node = new mod.Node('witness');
  const client = new mod.ActionClient(node, 'nav2_msgs/action/NavigateToPose', '/navigate_to_pose');
  other.servers.set('/navigate_to_pose', {});
  const handle = await client.sendGoal({ pose: {}, behavior_tree: '' });
  process.emit('SIGINT');
  assert.deepEqual(other.log.slice(-2), ['destroy witness', 'shutdown']);
  assert.throws(
    () => handle.cancelGoal(),
    /the action client of \/navigate_to_pose is destroyed/,
    'the cancel can no longer be sent',
  );
  mod.removeSignalHandlers();
  assert.equal(other.signalHandlerInstalled, false);
});

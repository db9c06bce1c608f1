#!/usr/bin/env node
// Rebuilds the native modules the app uses for Electron's ABI. A no-op (exit 0) when
// @electron/rebuild or the modules are not installed, so CI without Electron can run it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NATIVE_MODULES = ['better-sqlite3', 'onnxruntime-node', 'rclnodejs'];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modulesDir = path.join(root, 'node_modules');

function installedVersion(name) {
  const manifest = path.join(modulesDir, name, 'package.json');
  if (!existsSync(manifest)) return null;
  try {
    const parsed = JSON.parse(readFileSync(manifest, 'utf8'));
    return typeof parsed.version === 'string' ? parsed.version : null;
  } catch {
    return null;
  }
}

if (!existsSync(path.join(modulesDir, '@electron', 'rebuild', 'package.json'))) {
  console.log(
    'native/rebuild: @electron/rebuild is not installed; skipping. ' +
      'Install it with `npm install --no-save @electron/rebuild` to build native modules for Electron.',
  );
  process.exit(0);
}

const electronVersion = installedVersion('electron');
if (!electronVersion) {
  console.log('native/rebuild: electron is not installed; skipping.');
  process.exit(0);
}

let present = NATIVE_MODULES.filter((name) => installedVersion(name) !== null);
// rclnodejs compiles against the ROS 2 libraries of the sourced distribution (its build reads
// AMENT_PREFIX_PATH), so without a sourced ROS 2 its rebuild can only fail: skip it, and say how.
if (present.includes('rclnodejs') && !process.env.ROS_DISTRO) {
  console.log(
    'native/rebuild: skipping rclnodejs: ROS 2 is not sourced. Run `source /opt/ros/<distro>/setup.bash` ' +
      '(humble or jazzy) and this script again to rebuild it for Electron.',
  );
  present = present.filter((name) => name !== 'rclnodejs');
}
if (present.length === 0) {
  console.log(`native/rebuild: none of ${NATIVE_MODULES.join(', ')} is installed (or buildable here); nothing to do.`);
  process.exit(0);
}

console.log(`native/rebuild: rebuilding ${present.join(', ')} for Electron ${electronVersion}`);
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const result = spawnSync(
  npx,
  ['--no-install', '@electron/rebuild', '--version', electronVersion, '--force', '--only', present.join(',')],
  { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' },
);
if (result.error) {
  console.error(`native/rebuild: could not run @electron/rebuild: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);

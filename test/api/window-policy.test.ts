import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { WEB_PREFERENCES, appFile, isAppUrl } from '../../main/api/window-policy.js';
import { CONTENT_SECURITY_POLICY } from '../../main/api/web/csp.js';

test('the desktop window follows the Electron security checklist', () => {
  assert.equal(WEB_PREFERENCES.contextIsolation, true);
  assert.equal(WEB_PREFERENCES.sandbox, true);
  assert.equal(WEB_PREFERENCES.nodeIntegration, false);
  assert.equal(WEB_PREFERENCES.nodeIntegrationInWorker, false);
  assert.equal(WEB_PREFERENCES.webSecurity, true);
  assert.equal(WEB_PREFERENCES.webviewTag, false);
  assert.match(CONTENT_SECURITY_POLICY, /default-src 'none'/);
  assert.match(CONTENT_SECURITY_POLICY, /script-src 'self'(;|$)/);
  assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-eval/);
});

test('only app:// pages of the app count as the app, and app:// paths cannot leave the renderer folder', () => {
  assert.ok(isAppUrl('app://witness/index.html'));
  for (const u of [
    'app://evil/index.html',
    'https://witness/',
    'file:///etc/passwd',
    'app://user:pw@witness/',
    'not a url',
    '',
  ])
    assert.ok(!isAppUrl(u), u);
  const root = path.resolve('/opt/witness/renderer/dist');
  assert.equal(appFile('app://witness/', root), path.join(root, 'index.html'));
  assert.equal(appFile('app://witness/assets/x.js', root), path.join(root, 'assets', 'x.js'));
  assert.equal(appFile('app://witness/..%2f..%2fpackage.json', root), null);
  assert.equal(appFile('app://witness/%E0%A4%A', root), null);
  assert.equal(appFile('app://other/index.html', root), null);
});

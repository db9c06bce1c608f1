// The console's models list: shipped bundles read by their regime, workspace ones by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelsLabel } from '../../renderer/src/console/models-label.js';

test('a shipped bundle reads as its regime, a workspace bundle by its name', () => {
  assert.equal(modelsLabel('antmaze-medium', 'antmaze-medium'), 'shipped (navigate)');
  assert.equal(modelsLabel('antmaze-medium', 'antmaze-medium-stitch'), 'shipped (stitch)');
  assert.equal(modelsLabel('antmaze-medium', 'workspace/antmaze-medium-mine'), 'workspace/antmaze-medium-mine');
  assert.equal(modelsLabel('pointmaze-medium', 'workspace/tiny'), 'workspace/tiny');
});

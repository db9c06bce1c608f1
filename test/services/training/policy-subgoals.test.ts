/** π_low's subgoals: F(s, H) along the recorded trajectory, for one horizon or several taken in turn. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subgoals } from '../../../main/services/training/policy-trainer.js';

/** One trajectory of 60 states on a line, one latent unit apart (latent = [t]), and a second of 10. */
function line(): { terminals: Uint8Array; latent: Float32Array } {
  const n = 70;
  const terminals = new Uint8Array(n);
  terminals[59] = 1;
  terminals[69] = 1;
  const latent = Float32Array.from({ length: n }, (_, i) => (i < 60 ? i : i - 60));
  return { terminals, latent };
}

test('subgoals: the first later state at latent distance ≥ H_TD, never past the trajectory end', () => {
  const { terminals, latent } = line();
  const sg = subgoals(terminals, latent, 1, 8);
  const at = (row: number): number => sg.targets[Array.from(sg.rows).indexOf(row)]!;
  assert.equal(at(0), 8);
  assert.equal(at(40), 48);
  // Near the end the subgoal is the trajectory's last state, not the next trajectory's first.
  assert.equal(at(55), 59);
  assert.equal(at(62), 69);
  assert.ok(!Array.from(sg.rows).includes(59), 'a terminal state has no subgoal');
  assert.ok(
    Array.from(sg.directions).every((d) => d === 1),
    'unit directions along the line',
  );
});

test('subgoals with horizons: row i aims horizons[i mod length] ahead', () => {
  const { terminals, latent } = line();
  const sg = subgoals(terminals, latent, 1, 8, [8, 16, 24]);
  const at = (row: number): number => sg.targets[Array.from(sg.rows).indexOf(row)]!;
  assert.deepEqual([at(0), at(1), at(2), at(3), at(4), at(5)], [8, 17, 26, 11, 20, 29]);
  // One horizon equal to H_TD is the plain rule.
  assert.deepEqual(
    Array.from(subgoals(terminals, latent, 1, 8, [8]).targets),
    Array.from(subgoals(terminals, latent, 1, 8).targets),
  );
  assert.throws(() => subgoals(terminals, latent, 1, 8, []), /subgoal horizons must be positive/);
  assert.throws(() => subgoals(terminals, latent, 1, 8, [8, 0]), /subgoal horizons must be positive/);
});

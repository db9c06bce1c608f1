// The E-STOP reset dialog's rule: the acknowledgement and a reason the API would accept, said once typed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resetCheck } from '../../renderer/src/estop-model.js';

test('a one-character reason does not reset the E-STOP, and the dialog says why', () => {
  const r = resetCheck(true, 'k');
  assert.equal(r.allowed, false);
  assert.match(r.message, /^The reason says too little \(1 visible character; at least 3\)/);
  assert.equal(resetCheck(true, '  ok ').allowed, false);
  assert.equal(resetCheck(true, '\u200b\u200b\u200b\u200b').allowed, false, 'zero-width characters show nothing');
});

test('the reset needs the acknowledgement and a reason; an empty box is not scolded', () => {
  assert.deepEqual(resetCheck(false, ''), { allowed: false, message: '' });
  assert.deepEqual(resetCheck(false, 'robot parked, area clear'), { allowed: false, message: '' });
  assert.deepEqual(resetCheck(true, 'robot parked, area clear'), { allowed: true, message: '' });
  assert.match(resetCheck(true, 'abc\u202e').message, /bidirectional/);
});

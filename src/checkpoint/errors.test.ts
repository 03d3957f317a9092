// A CheckpointError's message is one bounded line whatever was put in it (the last line of
// defence behind describeValue and quote), and named() shows a plain name as it is, anything else quoted.
import * as assert from 'node:assert/strict';
import { CheckpointError, MESSAGE_MAX, named } from './errors';

describe('CheckpointError', () => {
  it('one line: line breaks become a space, control and bidi characters escapes', () => {
    const e = new CheckpointError('a\n  b\r\nc\u001b[2Jd\u202ee\u0000', { file: 'f', tensor: 't' });
    assert.equal(e.message, 'a b c\\u001b[2Jd\\u202ee\\u0000');
    assert.deepEqual([e.name, e.file, e.tensor], ['CheckpointError', 'f', 't']);
  });

  it('a message over MESSAGE_MAX characters is cut with …, a 10 MB one without copying it whole', () => {
    const long = new CheckpointError(`tensor ${'x'.repeat(10_000_000)} is bad`);
    assert.equal(long.message.length, MESSAGE_MAX);
    assert.ok(long.message.endsWith('x…'));
    assert.equal(new CheckpointError('y'.repeat(MESSAGE_MAX)).message, 'y'.repeat(MESSAGE_MAX));
    const pair = new CheckpointError('z'.repeat(MESSAGE_MAX - 2) + '😀'.repeat(10)).message;
    assert.ok(pair.endsWith('z…'), 'a surrogate pair is not cut in half');
  });

  it('named(): plain names as they are, others quoted and bounded', () => {
    assert.equal(named('model.layers.0.self_attn.q_proj.weight'), 'model.layers.0.self_attn.q_proj.weight');
    assert.equal(named('model-00001-of-00002.safetensors'), 'model-00001-of-00002.safetensors');
    assert.equal(named('a b'), '"a b"');
    assert.equal(named(''), '""');
    assert.equal(named('q'.repeat(100)), `"${'q'.repeat(60)}…" (100 characters)`);
    assert.equal(named('a\u200bb'), '"a\\u200bb" (\\u200b is a zero-width space)');
  });
});

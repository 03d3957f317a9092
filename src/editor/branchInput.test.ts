import * as assert from 'node:assert/strict';
import { asksForGeneration, branchInsertion } from './branchInput';

function apply(text: string, ins: { offset: number; text: string } | null): string {
  assert.ok(ins);
  return text.slice(0, ins.offset) + ins.text + text.slice(ins.offset);
}

describe('generation in the model file\'s text', () => {
  it('asks for generation only with a checkpoint and a "generate" object (not in a comment, not a string)', () => {
    assert.equal(asksForGeneration('{"checkpoint": "./m", "token_ids": [1], "generate": {"tokens": 4}}'), true);
    assert.equal(asksForGeneration('// "generate": {}\n{"checkpoint": "./m", "token_ids": [1]}'), false);
    assert.equal(asksForGeneration('{"checkpoint": "./m", "prompt": "\\"generate\\": {}"}'), false);
    assert.equal(asksForGeneration('{"checkpoint": "./m", "generate": 3}'), false);
    assert.equal(asksForGeneration('{"layers": [], "generate": {}}'), false);
    assert.equal(asksForGeneration('{"checkpoint": "./m", "prompt": "a\\\\", /* "x": { */ "generate": {}}'), true, 'an escaped backslash ends the string');
    assert.equal(asksForGeneration('{"checkpoint": "./m", "saes": [{"generate": {}}]}'), false, 'a key inside another value');
  });

  it('branches "token_ids": the generated ids, then the alternative, after the last id', () => {
    const text = '{\n  "checkpoint": "./m",\n  "token_ids": [1, 403,\n    407 ],\n  "generate": {}\n}';
    const b = branchInsertion(text, [432, 383], ['a', 'b']);
    assert.equal(b.insertion && 'key' in b ? b.key : null, 'token_ids');
    assert.equal(apply(text, b.insertion), '{\n  "checkpoint": "./m",\n  "token_ids": [1, 403,\n    407, 432, 383 ],\n  "generate": {}\n}');
    assert.equal(JSON.parse(apply(text, b.insertion)).token_ids.join(), '1,403,407,432,383');
  });

  it('branches an empty "token_ids"', () => {
    const text = '{"checkpoint": "./m", "token_ids": []}';
    assert.deepEqual(JSON.parse(apply(text, branchInsertion(text, [9], ['x']).insertion)).token_ids, [9]);
  });

  it('branches "prompt": the tokens\' text appended, escaped as JSON', () => {
    const text = '{"checkpoint": "./m", "prompt": "Once \\"upon\\"", "generate": {"tokens": 2}}';
    const b = branchInsertion(text, [1, 2], [' a', ' "time"\n']);
    assert.equal(JSON.parse(apply(text, b.insertion)).prompt, 'Once "upon" a "time"\n');
  });

  it('says why when there is no input to continue', () => {
    const b = branchInsertion('{"checkpoint": "./m"}', [1], ['a']);
    assert.equal(b.insertion, null);
    assert.match('why' in b ? b.why : '', /no "token_ids" list or "prompt" string/);
  });
});

// One test per kind of problem: its code, message, JSON path, line and column.
import * as assert from 'node:assert/strict';
import { LineIndex } from '../../../src/model/lines';
import { formatPath, type Problem } from '../../../src/model/problems';
import { readModel } from '../../../src/model/read';
import { parseJsonc, type ArrayNode, type ObjectNode } from '../../../src/model/jsonc';
import { formatBytes, runBudget } from '../../../src/core/runSize';
import { rng } from '../../helpers/random';

interface Seen { severity: string; code: string; path: string; line: number; col: number; message: string; at: string }

function problems(text: string): Seen[] {
  const res = readModel(text, 'm.ffn.json');
  const lines = new LineIndex(text);
  return res.problems.map((p: Problem) => {
    const { line, col } = lines.position(p.start);
    return { severity: p.severity, code: p.code, path: formatPath(p.path), line, col, message: p.message, at: text.slice(p.start, p.end) };
  });
}

function only(text: string, code: string): Seen {
  const ps = problems(text).filter((p) => p.code === code);
  assert.equal(ps.length, 1, `expected one "${code}" problem, got:\n${JSON.stringify(problems(text), null, 1)}`);
  return ps[0];
}

const ID3 = '[[1, 0, 0], [0, 1, 0], [0, 0, 1]]';

describe('readModel: a valid file', () => {
  it('reads the identity example with defaults filled in', () => {
    const res = readModel(`{
      // comments and trailing commas are fine
      "version": 1,
      "input": [[1, 0, 1.5], [0, 1, 0]],
      "ffn": { "W1": ${ID3}, "b1": [0.1, 0, -0.2], "W2": ${ID3}, "b2": [-0.2, 0.1, 0.3], },
    }`, '/some/dir/identity.ffn.json');
    assert.deepEqual(res.problems, []);
    const m = res.file!;
    assert.equal(m.name, 'identity');
    assert.deepEqual(m.tokens, ['t0', 't1']);
    assert.equal(m.layout, 'out_in');
    assert.equal(m.model.spec.norm, 'none');
    assert.equal(m.model.spec.residual, false);
    assert.equal(m.model.spec.layers[0].ffn!.activation, 'relu');
    assert.deepEqual(m.dims, { seq: 2, dModel: 3, dFf: 3, heads: 0, layers: 1, vocab: 0 });
    assert.deepEqual(m.paramCounts, { attention: 0, ffn: 9 + 3 + 9 + 3, norm: 0, head: 0, total: 24 });
  });
});

describe('readModel: problems, with path, line and column', () => {
  it('JSON syntax error: position of the slip', () => {
    const p = only('{\n  "version": 1,\n  "input": [[1, 2] [3, 4]]\n}', 'syntax');
    assert.deepEqual([p.line, p.col, p.severity], [3, 20, 'error']);
    assert.match(p.message, /expected a comma or \]/);
  });

  it('wrong type: residual as a string', () => {
    const p = only(`{"version": 1, "residual": "yes",\n "input": [[1]], "ffn": {"W1": [[1]], "W2": [[1]]}}`, 'type');
    assert.equal(p.path, 'residual');
    assert.equal(p.message, 'residual must be true or false, found the string "yes"');
    assert.deepEqual([p.line, p.col, p.at], [1, 28, '"yes"']);
  });

  it('ragged matrix: names the row and both lengths', () => {
    const text = `{"version": 1, "input": [[1, 2]],\n "ffn": {"W1": [[1, 2],\n   [3]], "W2": [[1], [2]]}}`;
    const p = only(text, 'ragged');
    assert.equal(p.path, 'ffn.W1[1]');
    assert.equal(p.message, 'ffn.W1[1] has 1 number but W1[0] has 2: every row of a matrix has the same length');
    assert.deepEqual([p.line, p.col, p.at], [3, 4, '[3]']);
  });

  it('ragged matrix: the row that differs from the others is blamed, even when it is row 0', () => {
    const text = `{"version": 1, "input": [[1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [1, 2, 3, 4]], "ffn": {"W1": [[1, 0, 0, 0]], "W2": [[1], [0], [0], [0]]}}`;
    const p = only(text, 'ragged');
    assert.equal(p.path, 'input[0]');
    assert.equal(p.message, 'input[0] has 3 numbers but input[1] has 4 (as every other row): every row of a matrix has the same length');
  });

  it('shape that does not fit: which dimension, what was expected and why', () => {
    const W1 = JSON.stringify(Array.from({ length: 16 }, () => Array(8).fill(0)));
    const text = `{"version": 1, "input": [[1, 2, 3, 4, 5, 6]],\n"ffn": {"W1": ${W1}, "W2": [[0]]}}`;
    const p = only(text, 'shape');
    assert.equal(p.path, 'ffn.W1');
    assert.equal(p.message, 'ffn.W1 is [16, 8] but input rows have d_model = 6, so W1 must be [d_ff, 6] (layout out_in)');
    assert.deepEqual([p.line, p.col], [2, 15]);
  });

  it('W2 against both d_model and d_ff', () => {
    const text = `{"version": 1, "input": [[1, 2]], "ffn": {"W1": [[1, 0], [0, 1], [1, 1]], "W2": [[1, 0], [0, 1]]}}`;
    const p = only(text, 'shape');
    assert.equal(p.path, 'ffn.W2');
    assert.equal(p.message, 'ffn.W2 is [2, 2] but d_ff = 3 (from W1) and d_model = 2, so W2 must be [2, 3] (layout out_in)');
  });

  it('a matrix that fits only in the other layout says so and names the setting', () => {
    const W1 = JSON.stringify(Array.from({ length: 2 }, () => Array(4).fill(1))); // [in=2][out=4]
    const W2 = JSON.stringify(Array.from({ length: 4 }, () => Array(2).fill(1))); // [in=4][out=2]
    const text = `{"version": 1, "input": [[1, 2]], "ffn": {"W1": ${W1}, "W2": ${W2}}}`;
    const res = readModel(text, 'm.ffn.json');
    const layout = res.problems.filter((p) => p.code === 'layout');
    assert.equal(layout.length, 1, JSON.stringify(res.problems)); // W2 is not checked once W1 fails
    assert.equal(layout[0].message, 'ffn.W1 is [2, 4] but input rows have d_model = 2, so W1 must be [d_ff, 2] (layout out_in); it fits layout "in_out" ([in][out]): if the file stores matrices that way, set "layout": "in_out" at the top level');
    assert.deepEqual(layout[0].fix, { kind: 'set-layout', to: 'in_out' });
    // with the layout set, it reads
    const fixed = readModel(text.replace('"version": 1,', '"version": 1, "layout": "in_out",'), 'm.ffn.json');
    assert.deepEqual(fixed.problems, []);
    assert.equal(fixed.file!.dims.dFf, 4);
  });

  it('heads that do not divide d_model', () => {
    const text = `{"version": 1, "input": [[1, 2, 3, 4, 5, 6]],\n "attention": {"heads": 4}}`;
    const p = only(text, 'heads');
    assert.equal(p.path, 'attention.heads');
    assert.equal(p.message, 'attention.heads = 4 does not divide d_model = 6: each head takes d_model / heads columns; use one of 1, 2, 3, 6');
    assert.deepEqual([p.line, p.col, p.at], [2, 25, '4']);
  });

  it('a few characters a layer can ask for more memory than there is: one error at input with what a run needs and what is available', () => {
    // 3,000 rows of 4 numbers and 100 bare attention layers of 4 heads: ~36 KB of text, 29 GB of attention stages
    const rows = Array.from({ length: 3000 }, () => '[1,0,0,1]').join(',');
    const text = `{"version": 1, "input": [${rows}],\n "layers": [${Array.from({ length: 100 }, () => '{"attention": {"heads": 4}}').join(',')}]}`;
    const res = readModel(text, 'm.ffn.json');
    assert.equal(res.file, null);
    const errors = res.problems.filter((p) => p.severity === 'error');
    assert.equal(errors.length, 1);
    assert.deepEqual(errors[0].path, ['input']);
    assert.equal(errors[0].message, `input has 3000 rows; a run of this model over them needs 29.0 GB for its stages, available ${formatBytes(runBudget())} (attention keeps heads × rows × rows numbers in every layer): give fewer rows or fewer layers`);
    // the same file with 30 rows reads
    assert.ok(readModel(text.replace(rows, Array.from({ length: 30 }, () => '[1,0,0,1]').join(',')), 'm.ffn.json').file);
  });

  it('NaN, Infinity and strings where numbers belong: each at its element', () => {
    const text = `{"version": 1,\n "input": [[1, NaN], [Infinity, "0.5"]],\n "ffn": {"W1": [[1, 0]], "W2": [[1], [0]]}}`;
    const ps = problems(text).filter((p) => p.severity === 'error');
    assert.deepEqual(ps.map((p) => [p.code, p.path, p.line, p.col, p.at]), [
      ['nonfinite', 'input[0][1]', 2, 16, 'NaN'],
      ['nonfinite', 'input[1][0]', 2, 23, 'Infinity'],
      ['type', 'input[1][1]', 2, 33, '"0.5"'],
    ]);
    assert.equal(ps[0].message, 'input[0][1] is NaN, which is not a number JSON allows: write a finite number');
    assert.equal(ps[2].message, 'input[1][1] must be a number, found the string "0.5"');
  });

  it('NaN or Infinity for a single number is named as the file\'s word, not as a NaN of ours', () => {
    // (was "found NaN (JSON has no NaN)": read like a value we computed)
    const t = only(`{"version": 1, "checkpoint": "./m", "token_ids": [1], "temperature": NaN}`, 'nonfinite');
    assert.equal(t.path, 'temperature');
    assert.equal(t.message, 'temperature must be a finite number, found NaN, which is not a number JSON allows');
    const n = only(`{"version": 1, "name": -Infinity, "input": [[1, 0]], "ffn": {"W1": [[1, 0]], "W2": [[1], [0]]}}`, 'type');
    assert.match(n.message, /^name must be a string, found -Infinity, which is not a number JSON allows$/);
  });

  it('a number too large for float32', () => {
    const p = only(`{"version": 1, "input": [[1, 1e39]], "ffn": {"W1": [[1, 0]], "W2": [[1], [0]]}}`, 'overflow');
    assert.equal(p.path, 'input[0][1]');
    assert.match(p.message, /1e39 is too large for float32/);
  });

  it('a checkpoint override too large for float32 is an error at its value, not Infinity', () => {
    const w = only(`{"version": 1, "checkpoint": "./m", "token_ids": [1], "weights": {"layers.0.ffn.W1[0][0]": 1e39}}`, 'overflow');
    assert.equal(w.path, 'weights["layers.0.ffn.W1[0][0]"]');
    assert.equal(w.at, '1e39');
    assert.match(w.message, /= 1e39 is too large for float32/);
    const s = only(`{"version": 1, "checkpoint": "./m", "token_ids": [1], "scale": {"layers.0.ffn.neuron.1": -4e38}}`, 'overflow');
    assert.equal(s.path, 'scale["layers.0.ffn.neuron.1"]');
    assert.equal(problems(`{"version": 1, "checkpoint": "./m", "token_ids": [1], "scale": {"layers.0.ffn.neuron.1": -3e38}}`).length, 0, 'the largest float32s are numbers');
  });

  it('a token id is quoted as written, not as the float32 it was read into', () => {
    const ids = (list: string): string => only(`{"version": 1, "checkpoint": "./m", "token_ids": ${list}}`, 'value').message;
    assert.equal(ids('[1, 0.1]'), 'token_ids[1] must be a token id (a whole number, 0 or more), found 0.1');
    assert.equal(ids('[1e20]'), 'token_ids[0] must be a token id, at most 16777215, found 1e20');
    assert.equal(ids('[1, 16777217]'), 'token_ids[1] must be a token id, at most 16777215, found 16777217');
    assert.equal(ids('[1, -3]'), 'token_ids[1] must be a token id (a whole number, 0 or more), found -3');
  });

  it('a tokens list of the wrong length', () => {
    const p = only(`{"version": 1, "tokens": ["a", "b", "c"],\n "input": [[1], [2]], "ffn": {"W1": [[1]], "W2": [[1]]}}`, 'tokens-length');
    assert.equal(p.path, 'tokens');
    assert.equal(p.message, 'tokens has 3 labels but input has 2 rows: give one label per input row');
    assert.deepEqual([p.line, p.col], [1, 26]);
  });

  it('unknown keys: a warning with the nearest valid key', () => {
    const text = `{"version": 1, "input": [[1]],\n "ffn": {"activaton": "gelu", "W1": [[1]], "W2": [[1]]}}`;
    const p = only(text, 'unknown-key');
    assert.equal(p.severity, 'warning');
    assert.equal(p.path, 'ffn.activaton');
    assert.equal(p.message, 'unknown key "activaton" in ffn: did you mean "activation"?');
    assert.deepEqual([p.line, p.col, p.at], [2, 10, '"activaton"']);
    assert.ok(readModel(text, 'm.ffn.json').file, 'a warning does not stop the model');
  });

  it('a missing required key', () => {
    const p = only(`{"version": 1, "input": [[1]], "ffn": {"W1": [[1]]}}`, 'missing');
    assert.equal(p.path, 'ffn.W2');
    assert.match(p.message, /ffn needs W2/);
  });

  it('a gated activation without its gate', () => {
    const p = only(`{"version": 1, "input": [[1]], "ffn": {"activation": "swiglu", "W1": [[1]], "W2": [[1]]}}`, 'missing');
    assert.equal(p.path, 'ffn.Wg');
    assert.match(p.message, /"swiglu" is gated: ffn needs Wg/);
  });

  it('gathers every problem, not just the first', () => {
    const text = `{"version": 2, "norm": "middle", "input": [[1, 2], [3]], "ffn": {"W1": [[1]], "W2": [[1]], "extra": 1}}`;
    const codes = problems(text).map((p) => `${p.code}:${p.path}`);
    assert.deepEqual(codes.sort(), ['ragged:input[1]', 'unknown-key:ffn.extra', 'value:norm', 'value:version'].sort());
  });

  it('layers and the shorthand together is an error; so is a file with no layer at all', () => {
    const both = problems(`{"version": 1, "input": [[1]], "ffn": {"W1": [[1]], "W2": [[1]]}, "layers": [{"ffn": {"W1": [[1]], "W2": [[1]]}}]}`);
    assert.deepEqual(both.map((p) => [p.severity, p.code, p.path]), [['error', 'value', 'ffn']]);
    assert.match(both[0].message, /use either "layers" or the single-layer shorthand/);
    assert.equal(only(`{"version": 1, "input": [[1]]}`, 'missing').message, 'a model needs at least one of "ffn", "attention" or "layers"');
  });

  it('never throws: random edits of a valid file', () => {
    const good = `{"version": 1, "tokens": ["a", "b"], "norm": "pre", "residual": true, "input": [[1, 2], [3, 4]],
      "layers": [{"attention": {"heads": 2, "causal": true, "Wq": [[1, 0], [0, 1]]}, "ffn": {"activation": "geglu", "W1": [[1, 0]], "Wg": [[0, 1]], "W2": [[1], [0]]}, "ln1": {"gamma": [1, 1]}}],
      "head": {"W": [[1, 0], [0, 1], [1, 1]], "vocab": ["x", "y", "z"], "temperature": 0.5}}`;
    assert.ok(readModel(good, 'g.ffn.json').file);
    const r = rng(11);
    const pieces = ['[', ']', '{', '}', ',', '"', ':', '1', '-', 'NaN', 'null', '"W1"', ' ', '\n', '[[1]]', 'true'];
    for (let i = 0; i < 2000; i++) {
      let t = good;
      for (let k = 0; k < 1 + Math.floor(r() * 3); k++) {
        const at = Math.floor(r() * t.length);
        const del = Math.floor(r() * 4);
        t = t.slice(0, at) + (r() < 0.7 ? pieces[Math.floor(r() * pieces.length)] : '') + t.slice(at + del);
      }
      assert.doesNotThrow(() => readModel(t, 'g.ffn.json'), t);
      const res = readModel(t, 'g.ffn.json');
      assert.ok(!res.problems.some((p) => p.code === 'internal'), `internal error for:\n${t}\n${JSON.stringify(res.problems)}`);
    }
  });
});

describe('readModel: messages after syntax slips', () => {
  it('an unterminated comment inside a row is reported once, and the row is not called empty', () => {
    const ps = problems(`{"version": 1, "input": [[1, 2]], "ffn": {"W1": [[1, 0]], "W2": [[1], [0]], "b2": [1, 2 /* x`);
    const unterminated = ps.filter((p) => /unterminated block comment/.test(p.message));
    assert.equal(unterminated.length, 1, JSON.stringify(ps));
    assert.ok(!ps.some((p) => /has 0 numbers/.test(p.message)), JSON.stringify(ps));
  });
  it('single quotes: one clear message, not a cascade', () => {
    const ps = problems(`{"version": 1, "name": 'abc', "input": [[1]], "ffn": {"W1": [[1]], "W2": [[1]]}}`);
    assert.deepEqual(ps.map((p) => [p.code, p.message, p.at]), [['syntax', 'strings use double quotes: "…", not \'…\'', "'abc'"]]);
  });
  it('a lost bracket or quote: one problem where it happened, and nothing made up after it', () => {
    const model = (ffn: string): string => `{"version": 1, "input": [[1, 2]],\n "ffn": {\n  "W1": ${ffn}\n }\n}`;
    const one = (text: string): [string, number, number, string] => {
      const ps = problems(text);
      assert.equal(ps.length, 1, JSON.stringify(ps, null, 1));
      return [ps[0].path, ps[0].line, ps[0].col, ps[0].message];
    };
    // the ] of b1 lost: the next key is no array element
    assert.deepEqual(one(model('[[1, 0], [0, 1]],\n  "b1": [0, 0,\n  "W2": [[1, 0], [0, 1]]')),
      ['ffn.b1[1]', 4, 14, 'expected ] here: the array is not closed, and "W2" after it is a key']);
    // the [ of W1's first row lost: its other rows land among the keys
    assert.deepEqual(one(model('[1, 0],\n    [0, 1]],\n  "W2": [[1, 0], [0, 1]]')),
      ['ffn', 4, 5, 'expected a property name in double quotes, found a value: is a [ missing at the start of "W1"?']);
    // a stray quote: the string runs to the end of the line, and that is all that is said
    assert.deepEqual(one(model('[[1, "0], [0, 1]],\n  "W2": [[1, 0], [0, 1]]')),
      ['ffn.W1[0][1]', 3, 14, 'unterminated string: a string cannot span lines']);
    // a letter stuck to a number: one slip, not "expected a comma" and then "expected a value"
    assert.equal(one(model('[[1, 2x], [0, 1]], "W2": [[1, 0], [0, 1]]'))[3], 'expected a comma or ]');
  });

  it('a lost } of an inner object is reported where it is missing (by the indentation), not at the end of the file', () => {
    const lines = [
      '{',                                   // 1
      '  "version": 1,',                     // 2
      '  "input": [[1, 2]],',                // 3
      '  "ffn": {',                          // 4
      '    "W1": [[1, 0], [0, 1]],',         // 5
      '    "W2": [[1, 0], [0, 1]]',          // 6
      '  ,',                                 // 7: the } of "ffn" was here
      '  "head": {"W": [[1, 0]]}',           // 8
      '}',                                   // 9
    ];
    const ps = problems(lines.join('\n'));
    assert.deepEqual(ps.map((p) => [p.code, p.line, p.col, p.message]), [
      ['syntax', 9, 1, 'expected } before this one: "ffn" (opened on line 4) is not closed, and this } lines up with the { on line 1'],
    ]);
    // the } of a layer lost before the ] of "layers": one error, at that ], and the rest reads on
    const layered = ['{', '  "version": 1,', '  "input": [[1, 2]],', '  "layers": [', '    {', '      "ffn": {"W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]]}', '  ]', '}'].join('\n');
    assert.deepEqual(problems(layered).map((p) => [p.path, p.line, p.col, p.message]), [
      ['layers[0]', 7, 3, 'expected } before this ]: the object opened on line 5 is not closed'],
    ]);
    // a ] too many inside the top-level object is just that: the object reads on, "name" included
    const extra = problems('{"version": 1, "input": [[1, 2]]], "name": "x", "ffn": {"W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]]}}');
    assert.deepEqual(extra.map((p) => [p.path, p.col, p.message]), [['input', 33, 'expected a comma or }']]);
    // and a lost ] before the } around it
    assert.deepEqual(problems('{"version": 1, "input": [[1, 2]], "ffn": {"W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]]}, "tokens": ["a", "b"\n}').map((p) => [p.path, p.line, p.col, p.message]), [
      ['tokens', 2, 1, 'expected ] before this }: the array opened on line 1 is not closed'],
    ]);
    // the } lines up with the { of "attention" (line 2), not with the file's first line
    const deeper = ['{', '  "attention": {', '    "heads": 1,', '    "causal": {', '      "x": 1', '  },', '  "ffn": {"W1": [[1]], "W2": [[1]]}', '}'].join('\n');
    assert.deepEqual(problems(deeper).map((p) => [p.line, p.col, p.message]), [
      [6, 3, 'expected } before this one: "causal" (opened on line 4) is not closed, and this } lines up with the { on line 2'],
    ]);
    // a } indented with a tab under a line indented with spaces is not compared: the file is
    // merely cut short, and that is what is said
    const mixed = ['{', '  "version": 1,', '    "ffn": {', '\t"W1": [[1]], "W2": [[1]]', '\t},', '  "input": [[1]]'].join('\n');
    assert.deepEqual(problems(mixed).map((p) => [p.line, p.col, p.message]), [[1, 1, 'unterminated object: expected }']]);
    // the same text, well indented or all on one line: nothing is guessed
    const flat = problems(`{"version": 1, "input": [[1, 2]], "ffn": {"W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]]}`);
    assert.deepEqual(flat.map((p) => [p.line, p.col, p.message]), [[1, 1, 'unterminated object: expected }']]);
  });

  it('a value nested 5,000 deep: one problem at its 65th level, and the file reads on after it', () => {
    // (was: the parser gave up on the rest of the file, and each of the 64 containers left open said so)
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const text = `{"version": 1, "checkpoint": "./m", "token_ids": [1, ${deep}, 2], "name": "x"}`;
    const ps = problems(text);
    assert.deepEqual(ps.map((p) => [p.code, p.message]), [['syntax', 'nesting is deeper than 64 levels']]);
    assert.equal(ps[0].path.split('.').length, 63);
    const root = parseJsonc(text).root as ObjectNode;
    assert.deepEqual(root.props.map((p) => p.key), ['version', 'checkpoint', 'token_ids', 'name']);
    assert.deepEqual((root.props[2].value as ArrayNode).items.map((i) => i.kind), ['number', 'object', 'number']);
  });

  it('a file that ends inside nested values: one problem, at the innermost, counting the others', () => {
    const ps = problems('{"version": 1, "input": [[1, 2]], "ffn": {"W1": [[1, 0], [0');
    assert.deepEqual(ps.map((p) => [p.path, p.line, p.col, p.message]), [
      ['ffn.W1[1]', 1, 58, 'unterminated array: expected ] (the file ends inside 3 more objects or arrays around it)'],
    ]);
    const opened = problems(`{"version": 1, "input": ${'['.repeat(5000)}`);
    assert.deepEqual(opened.map((p) => p.message), ['nesting is deeper than 64 levels']);
  });

  it('a stray character before the object: one problem, not three', () => {
    const ps = problems(`x// a comment\n{"version": 1, "input": [[1]], "ffn": {"W1": [[1]], "W2": [[1]]}}`);
    assert.deepEqual(ps.map((p) => [p.code, p.line, p.col, p.message]), [['syntax', 1, 1, 'expected a value (a number, string, true, false, null, array or object), found "x"']]);
  });
  it('a missing comma in a vector: one problem, placed by the number it sits before, not "has 0 numbers"', () => {
    const ps = problems(`{"version": 1, "input": [[1, 2]], "ffn": {"W1": [[1, 0], [0, 1]], "b1": [-3, -1 -1], "W2": [[1, 0], [0, 1]]}}`);
    assert.deepEqual(ps.map((p) => [p.code, p.path, p.message, p.at]), [['syntax', 'ffn.b1[2]', 'expected a comma or ]', '-']]);
  });
});

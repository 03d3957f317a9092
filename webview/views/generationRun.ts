// The generation a panel shows (no DOM: tested on its own): the worker's messages of one run,
// kept in order of the document's versions (a message of an older text never replaces a newer
// run), what the progress line says, and what a click on an alternative writes (the branch).
import type { GeneratedToken, GenerationMessage, GenerationSettings, TokenText } from '../../src/protocol/generation';

export type RunState = 'running' | 'done' | 'cancelled' | 'changed' | 'error';

export interface Run {
  readonly version: number;
  readonly settings: GenerationSettings | null;
  readonly prompt: readonly TokenText[];
  readonly tokens: GeneratedToken[];
  total: number;
  state: RunState;
  /** Why it failed, or that it ended early (the positions ran out). */
  message: string | null;
  ms: number;
}

/** What a message did: a new run, a token appended, the run ended, or nothing (older, or not this run's). */
export type Applied = 'start' | 'token' | 'end' | 'off' | 'ignored';

export class GenerationRun {
  run: Run | null = null;

  /** The message applied to the run, if it is of the run shown or a newer one. */
  apply(m: GenerationMessage | { type: 'generation'; event: 'off' }): Applied {
    if (m.event === 'off') {
      this.run = null;
      return 'off';
    }
    const cur = this.run;
    if (m.event === 'start') {
      if (cur && m.version < cur.version) return 'ignored';
      this.run = { version: m.version, settings: m.settings, prompt: m.prompt, tokens: [], total: m.total, state: 'running', message: null, ms: 0 };
      return 'start';
    }
    if (m.event === 'token') {
      // (in order, once: a token of another run, or one seen, changes nothing)
      if (!cur || m.version !== cur.version || cur.state !== 'running' || m.token.index !== cur.tokens.length) return 'ignored';
      cur.tokens.push(m.token);
      cur.total = m.total;
      return 'token';
    }
    // the end: of this run, or a generation that could not begin (version -1, or a newer text's)
    if (m.version === -1 || !cur || m.version > cur.version) {
      if (cur && m.version === -1 && cur.state === 'running') return 'ignored';
      this.run = { version: m.version, settings: null, prompt: [], tokens: [], total: 0, state: m.reason, message: m.message ?? m.note, ms: m.ms };
      return 'end';
    }
    if (m.version !== cur.version) return 'ignored';
    cur.state = m.reason;
    cur.message = m.message ?? m.note;
    cur.ms = m.ms;
    return 'end';
  }

  /** The progress line: "generating 7 / 24", or how the run ended. */
  progress(): string {
    const r = this.run;
    if (!r) return '';
    const n = r.tokens.length;
    switch (r.state) {
      case 'running': return `generating ${n} / ${r.total}`;
      case 'done': return `generated ${n} token${n === 1 ? '' : 's'}${r.ms ? ` in ${formatMs(r.ms)}` : ''}${r.message ? ` (${r.message})` : ''}`;
      case 'cancelled': return `cancelled at ${n} / ${r.total}`;
      case 'changed': return 'the file changed: generating again from the new text…';
      case 'error': return r.message ?? 'generation failed';
    }
  }

  /**
   * A click on alternative `id` of step `step`: the input goes on with the tokens generated before
   * it, then the alternative (their ids for "token_ids", their text for "prompt").
   */
  branch(step: number, id: number): { version: number; ids: number[]; texts: string[] } | null {
    const r = this.run;
    const alt = r?.tokens[step]?.top.find((a) => a.id === id);
    if (!r || !alt) return null;
    const before = r.tokens.slice(0, step);
    return { version: r.version, ids: [...before.map((t) => t.id), alt.id], texts: [...before.map((t) => t.text), alt.text] };
  }
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

/** A token's text on a chip: line breaks and tabs made visible, an empty one said. */
export function chipText(text: string): string {
  if (text === '') return '∅';
  return text.replace(/\r?\n/g, '↵').replace(/\t/g, '→');
}

/** A probability as a percentage, 3 significant figures at most. */
export function percent(p: number): string {
  const x = p * 100;
  return x >= 99.95 ? '100%' : x >= 10 ? `${x.toFixed(1)}%` : x >= 0.01 ? `${x.toFixed(2)}%` : x > 0 ? '<0.01%' : '0%';
}

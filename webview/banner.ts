// What the banner at the top of the panel says, as data (app.ts turns it into elements; tests read
// it without a DOM). Two kinds of news belong there, where the user looks first: the file does not
// read as a model (errors: the last good view stays, dimmed), and weights the model is computed
// without (an unknown key holding numbers, e.g. a misspelled "attention": only a warning, since
// the rest computes, but one that silently changes every number shown).
import type { ProblemInfo } from '../src/protocol/panel';

/** The reader's code for an unknown key holding numbers (src/model/problems.ts). */
export const IGNORED_WEIGHTS = 'ignored-weights';
/** A misspelled experiment key ("ablat"): the model is computed without the edit it meant. */
export const IGNORED_EDIT = 'ignored-edit';

/** At most this many problems of each kind are listed; the rest are counted. */
export const BANNER_MAX_ITEMS = 5;

export interface BannerItem {
  readonly line: number;
  readonly col: number;
  readonly text: string;
}

export interface BannerBlock {
  readonly kind: 'error' | 'ignored';
  readonly title: string;
  readonly items: readonly BannerItem[];
  /** "… and 3 more in the Problems panel.", or null. */
  readonly more: string | null;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function block(kind: BannerBlock['kind'], title: string, list: readonly ProblemInfo[], text: (p: ProblemInfo) => string): BannerBlock {
  const shown = list.slice(0, BANNER_MAX_ITEMS);
  return {
    kind, title,
    items: shown.map((p) => ({ line: p.line, col: p.col, text: text(p) })),
    more: list.length > shown.length ? `… and ${list.length - shown.length} more in the Problems panel.` : null,
  };
}

/**
 * The banner's blocks for the problems of the text shown: errors first, then weights not used.
 * `dimmed`: a last good render stays on screen under the errors.
 */
export function bannerBlocks(problems: readonly ProblemInfo[], dimmed: boolean): BannerBlock[] {
  const out: BannerBlock[] = [];
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length) {
    const what = `The file does not read as a model (${plural(errors.length, 'problem')})`;
    // (most messages begin with their path already: "ffn.b1 has 3 numbers…")
    out.push(block('error', dimmed ? `${what}; showing the last good version, dimmed.` : `${what}.`, errors,
      (e) => (e.path === '$' || e.message.startsWith(e.path) ? e.message : `${e.path}: ${e.message}`)));
  }
  const ignored = problems.filter((p) => p.code === IGNORED_WEIGHTS);
  if (ignored.length) {
    const title = ignored.length === 1
      ? 'Weights not used: the model is computed without the numbers under this key.'
      : `Weights not used: the model is computed without the numbers under these ${ignored.length} keys.`;
    // (the message names the key and where it is)
    out.push(block('ignored', title, ignored, (p) => p.message));
  }
  const edits = problems.filter((p) => p.code === IGNORED_EDIT);
  if (edits.length) out.push(block('ignored', `Not applied: the model is computed without ${edits.length === 1 ? 'this key' : `these ${edits.length} keys`} (misspelled?).`, edits, (p) => p.message));
  return out;
}

/** The warnings listed in the content (small, below the banner): all but those the banner shows. */
export function contentWarnings(warnings: readonly ProblemInfo[]): ProblemInfo[] {
  return warnings.filter((w) => w.severity === 'warning' && w.code !== IGNORED_WEIGHTS && w.code !== IGNORED_EDIT);
}

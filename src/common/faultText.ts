// A fault of ours (a bug, or an engine error nothing foresaw: a TypeError, a RangeError) as the
// user reads it: what failed, in our words, then the engine's detail bounded, and where to report
// it. Never a bare TypeError text or a stack. (No Node built-ins: every bundle runs it.)

import { describeValue, terminalSafe } from './quote';

/** Where a fault is reported. */
export const ISSUES_URL = 'https://github.com/ffn-lens/ffn-lens/issues';

/** How many characters of an error's own text a message keeps. */
export const DETAIL_MAX = 100;

/** An error's own text for after our words: its first line, bounded, nothing a terminal acts on. */
export function errorDetail(e: unknown, max = DETAIL_MAX): string {
  if (!(e instanceof Error)) return e === undefined || e === null ? 'no detail' : describeValue(e, max);
  const first = String(e.message ?? '').split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  const text = terminalSafe(first === '' ? e.name || 'no detail' : first, false);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** "internal error in <step> (<detail>); please report it …": a fault of ours, said where it happened. */
export function internalFault(step: string, e: unknown): string {
  return `internal error in ${step} (${errorDetail(e)}); please report it: ${ISSUES_URL}`;
}

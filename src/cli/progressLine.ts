// The command line's word on a large checkpoint being read, to stderr: on a terminal one line
// rewritten in place at each percent; elsewhere (`--progress` into a log) a line every 10 %.
import { terminalSafe } from '../common/quote';
import type { ReadReport } from '../checkpoint/store';

/** What to write for a report, or null (between two 10 % steps when not on a terminal). */
export function progressText(r: ReadReport, tty: boolean, lastTenth: { n: number }): string | null {
  const name = terminalSafe(r.folder.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? r.folder, false);
  const pct = Math.floor((100 * r.done) / Math.max(1, r.total));
  const size = r.total >= 1e9 ? `${(r.total / 1e9).toFixed(1)} GB` : `${Math.round(r.total / 1e6)} MB`;
  const line = r.state === 'reading' || r.state === 'read' ? `ffn-lens: reading the checkpoint ${name}: ${pct} % of ${size}` : `ffn-lens: reading the checkpoint ${name} stopped at ${pct} % of ${size}`;
  const end = r.state !== 'reading';
  if (tty) return `\r${line}\u001b[K${end ? '\n' : ''}`;
  const tenth = Math.floor(pct / 10);
  if ((!end || r.state === 'read') && tenth <= lastTenth.n) return null; // (100 % once)
  lastTenth.n = tenth;
  return `${line}\n`;
}

// What the host passes on to the webview of a worker's message about the panel's document, once
// the panel has checked its version (panel.ts): no vscode here, so the bench counts the bytes of
// this hop with the very function the panel uses.
import type { FromWorker, WorkerProblem } from '../protocol/worker';
import type { ProblemInfo, ToWebview } from '../protocol/panel';

/** The webview's message for `m`, or null for one the webview is not sent (the panel acts on it itself). */
export function toWebview(m: FromWorker): ToWebview | null {
  switch (m.type) {
    case 'model':
      return m.summary
        ? { type: 'model', version: m.version, summary: m.summary, warnings: problemInfos(m.problems), ...(m.trace ? { trace: [...m.trace, Date.now()] } : {}) }
        : { type: 'problems', version: m.version, problems: problemInfos(m.problems) };
    case 'kept':
      return { type: 'kept', version: m.version, id: m.id, base: m.base };
    case 'cols':
      return { type: 'cols', version: m.version, id: m.id, cols: m.cols, data: m.data, base: m.base };
    case 'same':
      return { type: 'same', version: m.version, id: m.id, of: m.of };
    case 'stage':
      return { type: 'stage', version: m.version, id: m.id, shape: m.shape, data: m.data, offset: m.offset, total: m.total, ...(m.pooled ? { pooled: m.pooled } : {}) };
    case 'top':
      return { type: 'top', version: m.version, top: m.top };
    case 'done':
      return { type: 'done', version: m.version, ms: m.ms.parse + m.ms.forward, ...(m.kernel ? { kernel: m.kernel } : {}) };
    case 'compare':
      return { type: 'compare', version: m.version, label: m.label, error: m.error, incomparable: m.incomparable, top: m.top };
    default:
      return null;
  }
}

/** A problem as the panel lists it (the editor's offsets and fix left out). */
export function problemInfos(problems: readonly WorkerProblem[]): ProblemInfo[] {
  return problems.map((p) => ({ severity: p.severity, code: p.code, message: p.message, path: p.path, line: p.line, col: p.col }));
}

// What the host passes on to the webview of a worker's message about the panel's document, once
// the panel has checked its version (panel.ts): a render's stage messages as they are, the model
// message and 'done' in the webview's terms. No vscode here: the bench counts the bytes of this
// hop with the very function the panel uses.
import type { FromWorker, WorkerProblem } from '../protocol/worker';
import type { ProblemInfo, SummaryMessage, ToWebview } from '../protocol/panel';

/** The webview's message for `m`, or null for one the webview is not sent (the panel acts on it itself). */
export function toWebview(m: FromWorker): ToWebview | null {
  switch (m.type) {
    case 'model':
      return modelToWebview(m);
    case 'stage':
    case 'cols':
    case 'rows':
    case 'same':
    case 'kept':
    case 'top':
    case 'compare':
      return m; // (as the worker posted it: the webview reads the same types, src/protocol/stageMessages.ts)
    case 'generation':
      return m; // (as the worker posted it, once the panel has checked its version: panelGeneration.ts)
    case 'done':
      return { type: 'done', version: m.version, ms: m.ms.parse + m.ms.forward, ...(m.kernel ? { kernel: m.kernel } : {}) };
    default:
      return null;
  }
}

/** The model message: a render begins (its summary), or the text does not read as a model (its problems). */
export function modelToWebview(m: Extract<FromWorker, { type: 'model' }>): ToWebview {
  return m.summary
    ? { type: 'model', version: m.version, summary: m.summary, warnings: problemInfos(m.problems), ...(m.trace ? { trace: [...m.trace, Date.now()] } : {}) }
    : { type: 'problems', version: m.version, problems: problemInfos(m.problems) };
}

/** A problem as the panel lists it (the editor's offsets and fix left out). */
export function problemInfos(problems: readonly WorkerProblem[]): ProblemInfo[] {
  return problems.map((p) => ({ severity: p.severity, code: p.code, message: p.message, path: p.path, line: p.line, col: p.col }));
}

type Part<T> = { readonly key: number; readonly value: T } | null;

/**
 * The large parts of a summary (its words, its plan) on a model message the panel dropped as stale:
 * the worker takes them as held by the webview and leaves them out of the next summary of the same
 * key, so they are put back into it here (else the webview would lack them and ask for everything
 * again: while a prompt is typed, a render can end as the next key is on its way to the worker).
 */
export class DroppedParts {
  private vocab: Part<readonly string[]> = null;
  private stages: Part<{ stages: NonNullable<SummaryMessage['stages']>; tokenDims: NonNullable<SummaryMessage['tokenDims']> }> = null;

  /** A summary dropped on the way. */
  dropped(s: SummaryMessage): void {
    if (s.vocab) this.vocab = { key: s.vocabKey, value: s.vocab };
    if (s.stages && s.tokenDims) this.stages = { key: s.planKey, value: { stages: s.stages, tokenDims: s.tokenDims } };
  }

  /** A summary passed on: the parts it leaves out that were dropped under its keys, put back. */
  restore(s: SummaryMessage): SummaryMessage {
    const vocab = s.vocab ?? (this.vocab?.key === s.vocabKey ? this.vocab.value : null);
    // (the plan at the dropped summary's T: the webview sets its dims that are T to this one's)
    const plan = s.stages ? null : this.stages?.key === s.planKey ? this.stages.value : null;
    this.clear(); // (the webview holds this summary's parts now: the worker's next summary builds on them)
    return vocab === s.vocab && !plan ? s : { ...s, vocab, ...(plan ?? {}) };
  }

  /** The webview starts again (it holds nothing), or shows another document. */
  clear(): void {
    this.vocab = null;
    this.stages = null;
  }
}

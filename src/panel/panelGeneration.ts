// A panel's generation (issue 31): the worker generates after the document's input while its
// model file asks for it (a "generate" key: src/editor/branchInput.ts), again after each edit
// (the worker restarts it once the edited text's run ends). The host passes each generation
// message on to the webview unless it is of a text older than the document (a newer run is
// coming), turns generation off for Cancel, and writes a clicked alternative into the input.
import type * as vscode from 'vscode';
import type { ToWorker } from '../protocol/worker';
import type { FromWebview, ToWebview } from '../protocol/panel';
import type { GenerationMessage } from '../protocol/generation';
import type { PanelSource } from '../editor/panelSource';
import { asksForGeneration, GENERATE_SCAN_LIMIT } from '../editor/branchInput';

export interface GenerationHost {
  send(m: ToWorker): void;
  source(): PanelSource;
  post(m: ToWebview): void;
  /** Continue the document's input with these tokens (src/editor/branchEdit.ts). */
  branch(doc: vscode.TextDocument, ids: readonly number[], texts: readonly string[]): void;
  /** A line in the status bar. */
  say(text: string): void;
}

/** What tests read: the generation messages passed on and dropped as stale. */
export interface GenerationStats {
  passed: number;
  dropped: number;
  /** The version of the last generation start passed on, and its last token's `done`. */
  version: number;
  done: number;
}

export class PanelGeneration {
  /** The document the worker generates for (told `generate on`), or null. */
  private onFor: string | null = null;
  /** Cancelled at this version of the text: not generated again until an edit. */
  private cancelledAt: number | null = null;
  /** The version whose text was last looked at for "generate", and what it said. */
  private checked = { version: Number.NaN, key: '', asks: false };
  readonly stats: GenerationStats = { passed: 0, dropped: 0, version: -1, done: 0 };

  constructor(private readonly host: GenerationHost) {}

  /** Generating (or asked to) for the document shown. */
  get active(): boolean {
    return this.onFor !== null && this.onFor === this.host.source().key;
  }

  /** A render of `version` is complete: generation follows the file's "generate" key. */
  rendered(version: number): void {
    const src = this.host.source();
    if (version !== src.version) return;
    const asks = this.asks(src);
    if (asks && !this.active && (this.cancelledAt === null || version > this.cancelledAt)) {
      this.cancelledAt = null;
      this.turn(true);
    } else if (!asks && this.active) {
      this.turn(false);
      this.host.post({ type: 'generation', event: 'off' });
    }
  }

  /** A generation message from the worker about this document. */
  fromWorker(m: GenerationMessage): void {
    // (-1: it could not begin, said once; else a run of an older text stops here: the newer one comes)
    if (m.version !== -1 && m.version < this.host.source().version) {
      this.stats.dropped++;
      return;
    }
    this.stats.passed++;
    if (m.event === 'start') {
      this.stats.version = m.version;
      this.stats.done = 0;
    } else if (m.event === 'token') this.stats.done = m.done;
    this.host.post(m);
  }

  fromWebview(m: Extract<FromWebview, { type: 'generate' | 'branch' | 'showGenerated' }>): void {
    if (m.type === 'showGenerated') {
      // (of the text shown only: the worker answers with a render of that version)
      if (m.version === this.host.source().version) this.host.send({ type: 'showGenerated', doc: this.host.source().key, version: m.version, on: m.on });
      return;
    }
    if (m.type === 'generate') {
      if (m.on) {
        this.cancelledAt = null;
        this.turn(true);
      } else this.cancel();
      return;
    }
    const src = this.host.source();
    if (m.version !== src.version) return this.host.say('FFN Lens: the file changed meanwhile: pick the alternative again in the new generation');
    if (!src.document) return this.host.say('FFN Lens: the file is read from disk: open it in an editor to branch');
    this.host.branch(src.document, m.ids, m.texts);
  }

  /** Cancel (the panel's button, "FFN Lens: Stop Generating"): stopped until the file is edited. */
  cancel(): void {
    if (!this.active) return;
    this.cancelledAt = this.host.source().version;
    this.turn(false);
  }

  /** The worker or the webview starts again: generation is asked for anew after the replay's render. */
  resubscribe(): void {
    this.onFor = null;
    this.checked = { version: Number.NaN, key: '', asks: false };
  }

  /** The panel leaves its document (another document, or it closed): the worker stops generating for it. */
  leave(): void {
    if (this.onFor !== null) this.host.send({ type: 'generate', doc: this.onFor, on: false });
    this.onFor = null;
    this.cancelledAt = null;
    this.checked = { version: Number.NaN, key: '', asks: false };
  }

  private turn(on: boolean): void {
    const doc = this.host.source().key;
    if (!on && this.onFor === null) return;
    this.onFor = on ? doc : null;
    this.host.send({ type: 'generate', doc, on });
  }

  /** Whether the text asks for generation (read once per version; a large file never does). */
  private asks(src: PanelSource): boolean {
    if (this.checked.version === src.version && this.checked.key === src.key) return this.checked.asks;
    const doc = src.document;
    const end = doc ? doc.offsetAt(doc.lineAt(doc.lineCount - 1).range.end) : 0;
    const asks = !!doc && end <= GENERATE_SCAN_LIMIT && asksForGeneration(doc.getText());
    this.checked = { version: src.version, key: src.key, asks };
    return asks;
  }
}

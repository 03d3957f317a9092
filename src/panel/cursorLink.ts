// The editor's cursor drives the panel: in a row of W1 (a neuron) the panel highlights that
// neuron's column; in input[t], token t's row. Throttled; and right after the panel itself moved
// the cursor (a click on a cell), the cursor's move is not sent back to it: no feedback loop.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { PanelManager } from './panelManager';
import { timed } from '../host/busy';
import { Disposable } from '../host/dispose';
import type { ModelDocuments } from '../editor/modelDocuments';

const THROTTLE_MS = 80;
const QUIET_AFTER_REVEAL_MS = 600;

export class CursorLink extends Disposable {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private pending: vscode.TextEditor | null = null;
  private quietUntil = 0;
  private lastKey = '';
  /** The version of each document whose numbers the panel was last sent ('done'). */
  private readonly doneAt = new Map<string, number>();

  constructor(private readonly client: ComputeClient, private readonly docs: ModelDocuments, private readonly panels: PanelManager) {
    super();
    this._register(vscode.window.onDidChangeTextEditorSelection((e) => timed('selection', () => {
      // (the cursor moved by typing: the text is newer than the numbers, and its run's 'done' shows
      // it; a query and a highlight per key would only go ahead of that render on the way)
      const d = e.textEditor.document;
      if (d.version > (this.doneAt.get(d.uri.toString()) ?? -1)) return;
      this.schedule(e.textEditor);
    })));
    this._register(panels.onDidReveal(() => {
      this.quietUntil = Date.now() + QUIET_AFTER_REVEAL_MS;
    }));
    // new numbers: what the neuron under the cursor writes has changed; show it again
    this._register(client.onMessage((m) => {
      if (m.type !== 'done') return;
      this.doneAt.set(m.doc, m.version);
      const ed = vscode.window.activeTextEditor;
      if (ed && ed.document.uri.toString() === m.doc) {
        this.lastKey = '';
        this.schedule(ed);
      }
    }));
    this._register({ dispose: () => this.timer && clearTimeout(this.timer) });
  }

  private schedule(editor: vscode.TextEditor): void {
    if (!this.docs.isTracked(editor.document.uri) || !this.panels.find(editor.document.uri)) return;
    this.pending = editor;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const ed = this.pending;
      this.pending = null;
      if (ed) void this.send(ed);
    }, THROTTLE_MS);
  }

  private async send(editor: vscode.TextEditor): Promise<void> {
    if (Date.now() < this.quietUntil) return;
    const doc = editor.document;
    const panel = this.panels.find(doc.uri);
    if (!panel) return;
    const r = await this.client.query(doc.uri.toString(), { kind: 'cursor', offset: doc.offsetAt(editor.selection.active) });
    if (!r || r.kind !== 'cursor' || r.version !== doc.version) return;
    const c = r.cursor;
    const key = `${doc.uri.toString()} ${doc.version} ${JSON.stringify(c?.target ?? null)}`;
    if (key === this.lastKey) return; // the same neuron of the same numbers: nothing new to show
    this.lastKey = key;
    panel.postHighlight({
      type: 'highlight',
      target: c?.target ?? null,
      ...(c?.writes ? { writes: { shape: c.writes.shape, data: c.writes.data.slice().buffer as ArrayBuffer } } : {}),
    });
  }
}

// The model at a glance in the status bar while a model file is active: its shapes, its
// parameters and the FFN's share of them. Clicking it opens the panel.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { SummaryMessage } from '../protocol/panel';
import { Disposable } from '../host/dispose';
import type { ModelDocuments } from './modelDocuments';

function compact(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${Math.round(n / 1e3)}k` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n);
}

export function statusText(s: SummaryMessage): { text: string; tooltip: string } {
  const dff = s.layers.find((l) => l.ffn)?.ffn?.F;
  const p = s.params;
  const share = p.total ? Math.round((100 * p.ffn) / p.total) : 0;
  const shape = `${s.T}×${s.C}${dff ? `→${dff}` : ''}`;
  return {
    text: `$(graph) ${shape} · ${compact(p.total)} params${p.total ? ` · FFN ${share}%` : ''}`,
    tooltip: `${s.name}\n${s.T} token${s.T === 1 ? '' : 's'}, d_model ${s.C}${dff ? `, d_ff ${dff}` : ''}, ${s.layers.length} layer${s.layers.length === 1 ? '' : 's'}\n` +
      `${p.total.toLocaleString('en-US')} parameters: attention ${p.attention.toLocaleString('en-US')}, FFN ${p.ffn.toLocaleString('en-US')}, norms ${p.norm.toLocaleString('en-US')}, head ${p.head.toLocaleString('en-US')}\n` +
      (p.total ? `FFN holds ${share}% of the parameters\n` : '') + 'Click to visualize',
  };
}

export class ModelStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem('ffnLens.model', vscode.StatusBarAlignment.Right, 100));
  private readonly summaries = new Map<string, SummaryMessage | null>();

  constructor(client: ComputeClient, private readonly docs: ModelDocuments) {
    super();
    this.item.name = 'FFN Lens model';
    this.item.command = 'ffnLens.visualize';
    this._register(client.onMessage((m) => {
      if (m.type !== 'model') return;
      const doc = docs.get(m.doc);
      if (!doc || doc.version !== m.version) return;
      this.summaries.set(m.doc, m.summary);
      this.update();
    }));
    this._register(docs.onDidClose((uri) => {
      this.summaries.delete(uri.toString());
      this.update();
    }));
    this._register(vscode.window.onDidChangeActiveTextEditor(() => this.update()));
    this.update();
  }

  private update(): void {
    const doc = vscode.window.activeTextEditor?.document;
    if (!doc || !this.docs.isTracked(doc.uri)) {
      this.item.hide();
      return;
    }
    const s = this.summaries.get(doc.uri.toString());
    if (s === undefined) {
      this.item.hide();
      return;
    }
    if (s === null) {
      this.item.text = '$(graph) FFN Lens: not a valid model';
      this.item.tooltip = 'The file does not read as a model: see the Problems panel';
    } else {
      const t = statusText(s);
      this.item.text = t.text;
      this.item.tooltip = t.tooltip;
    }
    this.item.show();
  }
}

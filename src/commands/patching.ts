// "FFN Lens: Activation Patching": runs the patching of a checkpoint model file's input into its
// corrupted input in the worker, with VS Code's progress notification and its Cancel button; the
// result goes to the file's panel (opened if need be), in its Patching tab.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { Panel } from '../panel/panel';

/** Patching of GPT-2-small shape (12 layers × 32 tokens + 144 heads) takes about 20 s here: far below this. */
const PATCH_TIMEOUT_MS = 30 * 60 * 1000;

export async function runPatching(client: ComputeClient, panel: Panel, views: 'resid' | 'heads' = 'resid'): Promise<void> {
  panel.focusLens('patch');
  const title = views === 'resid' ? 'FFN Lens: activation patching (the residual stream)' : 'FFN Lens: activation patching (each head)';
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
    let reported = 0;
    const r = await client.query(panel.source.key, { kind: 'lens', request: { kind: 'patch', target: null, alt: null, views } }, PATCH_TIMEOUT_MS, {
      token,
      onProgress: (done, total) => {
        const pct = (done / total) * 100;
        progress.report({ increment: pct - reported, message: `${done} of ${total} runs (the clean and the corrupted, then one per patch)` });
        reported = pct;
        panel.showLensProgress(done, total);
      },
    });
    if (!r || r.kind !== 'lens') {
      panel.showLens(-1, { kind: 'error', lens: 'patch', message: 'the patching did not finish (the compute worker restarted, or it ran out of time)' });
      return;
    }
    // An error is said in the panel's Patching tab, which this command has just brought forward, and
    // which the next run replaces. (A warning toast said it too, and stayed after a later run worked:
    // VS Code gives no way to take a toast back.)
    panel.showLens(r.version, r.result);
  });
}

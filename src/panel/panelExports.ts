// A panel's exports: the bytes are made by the webview (it has the numbers and the pixels), or,
// for the numbers of a stage it holds pooled (across a vocabulary), from the worker's. Each
// request waits for its 'exported' answer by id.
import type { QueryResult } from '../protocol/worker';
import type { FromWebview, ToWebview } from '../protocol/panel';
import { csvText, npyBytes } from '../common/npy';
import { formatFloat32 } from '../common/float32';

type Kind = 'png' | 'csv' | 'npy' | 'report';

export class PanelExports {
  private readonly waiting = new Map<number, (r: Uint8Array | Error | 'pooled') => void>();
  private next = 1;

  constructor(
    private readonly post: (m: ToWebview) => void,
    /** The worker's numbers of a stage (its `stage` query). */
    private readonly stage: (stageId: string) => Promise<QueryResult | null>,
  ) {}

  request(kind: Kind, stageId: string | null): Promise<Uint8Array> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error('the panel did not answer'));
      }, 30_000);
      this.waiting.set(id, (r) => {
        clearTimeout(timer);
        if (r instanceof Error) reject(r);
        else if (r === 'pooled' && stageId && (kind === 'csv' || kind === 'npy')) this.workerStageBytes(kind, stageId).then(resolve, reject);
        else if (r === 'pooled') reject(new Error(`${stageId ?? 'the stage'}: the panel holds it pooled`));
        else resolve(r);
      });
      this.post({ type: 'export', id, kind, stageId });
    });
  }

  /** The webview's answer. */
  answer(m: Extract<FromWebview, { type: 'exported' }>): void {
    this.waiting.get(m.id)?.(m.bytes ? new Uint8Array(m.bytes) : m.pooled ? 'pooled' : new Error(m.error ?? 'the export failed'));
    this.waiting.delete(m.id);
  }

  private async workerStageBytes(kind: 'csv' | 'npy', stageId: string): Promise<Uint8Array> {
    const r = await this.stage(stageId);
    if (r?.kind !== 'stage') throw new Error('the compute worker did not answer');
    if ('error' in r) throw new Error(r.error);
    const data = new Float32Array(r.data);
    return kind === 'npy' ? npyBytes(data, r.shape) : new TextEncoder().encode(csvText(data, r.shape, r.tokens, formatFloat32));
  }
}

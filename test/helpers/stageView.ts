// What a panel holds of each stage, kept from the worker's messages as the webview keeps it:
// stages in pieces, columns of a stage, a stage that is another's numbers, a kept stage.
import type { FromWorker } from '../../src/protocol/worker';

export type StageView = Map<string, { shape: readonly number[]; data: Float32Array; version?: number; pooled?: number }>;

/** Applies one worker message to `view`; returns a complaint if it cannot be applied, else null. */
export function applyStageMessage(view: StageView, m: FromWorker): string | null {
  if (m.type === 'stage') {
    // (pieces of a large stage arrive in order, the first at offset 0)
    if (m.offset === 0) view.set(m.id, { shape: m.shape, data: new Float32Array(m.total), version: m.version, ...(m.pooled ? { pooled: m.pooled } : {}) });
    view.get(m.id)!.data.set(new Float32Array(m.data), m.offset);
  } else if (m.type === 'cols') {
    const had = view.get(m.id);
    if (!had) return `columns of ${m.id} before it was ever sent`;
    if (had.pooled) return `columns of ${m.id}, held pooled`;
    if (had.version !== undefined && had.version !== m.base) return `columns of ${m.id} on the numbers of version ${m.base}, held: ${had.version}`;
    const data = had.data.slice();
    const width = m.shape[m.shape.length - 1];
    const got = new Float32Array(m.data);
    const rows = data.length / width;
    for (let r = 0; r < rows; r++) m.cols.forEach((c, k) => { data[r * width + c] = got[r * m.cols.length + k]; });
    view.set(m.id, { shape: m.shape, data, version: m.version });
  } else if (m.type === 'rows') {
    const had = view.get(m.id);
    if (!had) return `rows of ${m.id} before it was ever sent`;
    if (had.version !== undefined && had.version !== m.base) return `rows of ${m.id} on the numbers of version ${m.base}, held: ${had.version}`;
    if ((had.pooled ?? 0) !== (m.pooled ?? 0)) return `rows of ${m.id} pooled to ${m.pooled ?? 'none'}, held pooled to ${had.pooled ?? 'none'}`;
    const [rows, width] = m.shape;
    const cols = m.pooled ?? width;
    const got = new Float32Array(m.data);
    const n = (rows - m.from) * cols;
    const keep = m.from * cols;
    const data = new Float32Array(m.pooled ? 2 * rows * cols : rows * cols);
    if (had.data.length < (m.pooled ? 2 : 1) * keep) return `rows of ${m.id} from ${m.from}: held only ${had.data.length} numbers`;
    data.set(had.data.subarray(0, keep));
    data.set(got.subarray(0, n), keep);
    if (m.pooled) {
      const heldRows = had.data.length / (2 * cols);
      data.set(had.data.subarray(heldRows * cols, heldRows * cols + keep), rows * cols);
      data.set(got.subarray(n), rows * cols + keep);
    }
    view.set(m.id, { shape: m.shape, data, version: m.version, ...(m.pooled ? { pooled: m.pooled } : {}) });
  } else if (m.type === 'same') {
    const of = view.get(m.of);
    if (!of) return `${m.id} is the same as ${m.of}, never sent`;
    view.set(m.id, { shape: of.shape, data: of.data, version: m.version });
  } else if (m.type === 'kept') {
    const had = view.get(m.id);
    if (!had) return `kept ${m.id} before it was ever sent`;
    if (had.version !== undefined && had.version !== m.base) return `kept ${m.id} as sent in version ${m.base}, held: ${had.version}`;
  }
  return null;
}

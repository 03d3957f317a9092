// The stream of one render: the worker's stages for one document version arrive one by one (a
// large stage in pieces); anything older than the render on screen is dropped. Whether a new
// render keeps the cards of the last one the worker says (ModelSummary.layoutKey).
import type { ModelSummary } from '../src/protocol/stages';

export interface Render {
  version: number;
  summary: ModelSummary;
  /** Stages of this render drawn or kept so far. */
  received: number;
}

export class RenderStream {
  render: Render | null = null;
  /** Stages arriving in pieces. */
  private readonly pieces = new Map<string, { version: number; data: Float32Array; filled: number }>();

  reset(): void {
    this.render = null;
    this.pieces.clear();
  }

  /**
   * A render begins: 'older' if one newer is on screen (drop it), 'same' if it keeps the cards of
   * the render before (same layout: its old numbers stay until the new ones come), 'new' if not.
   */
  begin(version: number, summary: ModelSummary): 'older' | 'same' | 'new' {
    const r = this.render;
    if (r && version < r.version) return 'older';
    const same = r !== null && r.summary.layoutKey === summary.layoutKey;
    this.render = { version, summary, received: 0 };
    return same ? 'same' : 'new';
  }

  /** Whether a message of `version` belongs to the render on screen. */
  current(version: number): boolean {
    return this.render?.version === version;
  }

  /** A piece of a stage's numbers: the whole stage once all its pieces are in, else null. */
  piece(version: number, id: string, buf: ArrayBuffer, offset: number, total: number): Float32Array | null {
    if (!this.current(version)) return null;
    let p = this.pieces.get(id);
    if (!p || p.version !== version || p.data.length !== total) {
      p = { version, data: offset === 0 && buf.byteLength / 4 === total ? new Float32Array(buf) : new Float32Array(total), filled: 0 };
      this.pieces.set(id, p);
    }
    if (p.data.buffer !== buf) p.data.set(new Float32Array(buf), offset);
    p.filled += buf.byteLength / 4;
    if (p.filled < total) return null;
    this.pieces.delete(id);
    return p.data;
  }
}

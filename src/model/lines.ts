// Offsets to 1-based line and column (UTF-16 code units, as VS Code counts them; for a file read
// as bytes, byte offsets, which are the same for the ASCII that weight files are made of). Lines
// end at "\n", "\r\n" or a lone "\r", as in VS Code (lineStarts.ts).
import type { Source } from './jsonc';
import { TextChunks } from './textChunks';
import { LineStarts } from './lineStarts';
import { lastAtOrBelow } from '../common/search';

export class LineIndex {
  private starts: number[] | null = null;

  constructor(private readonly text: Source) {}

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const b = new LineStarts();
    const t = this.text;
    if (t instanceof TextChunks) t.forEachChunk((c, at) => b.add(c, at));
    else b.add(t, 0);
    this.starts = b.starts;
    return b.starts;
  }

  position(offset: number): { line: number; col: number } {
    const starts = this.lineStarts();
    const i = lastAtOrBelow(starts, offset);
    return { line: i + 1, col: offset - starts[i] + 1 };
  }
}

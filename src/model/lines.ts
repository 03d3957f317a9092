// Offsets to 1-based line and column (UTF-16 code units, as VS Code counts them; for a file read
// as bytes, byte offsets, which are the same for the ASCII that weight files are made of).
import type { Source } from './jsonc';
import { TextChunks } from './textChunks';

import { lastAtOrBelow } from '../util/search';
export class LineIndex {
  private starts: number[] | null = null;

  constructor(private readonly text: Source) {}

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const starts = [0];
    const t = this.text;
    if (typeof t === 'string') for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) starts.push(i + 1);
    else if (t instanceof TextChunks) t.forEachChunk((c, at) => {
      for (let i = c.indexOf('\n'); i >= 0; i = c.indexOf('\n', i + 1)) starts.push(at + i + 1);
    });
    else for (let i = t.indexOf(10); i >= 0; i = t.indexOf(10, i + 1)) starts.push(i + 1);
    this.starts = starts;
    return starts;
  }

  position(offset: number): { line: number; col: number } {
    const starts = this.lineStarts();
    const i = lastAtOrBelow(starts, offset);
    return { line: i + 1, col: offset - starts[i] + 1 };
  }
}

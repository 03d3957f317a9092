// Where lines start, counted as VS Code counts them: "\n", "\r\n" and a lone "\r" (old Mac files)
// each end a line. Used by every line/column the user sees (the CLI, the worker's problems, the
// parser's "opened on line N"), so the numbers agree with the editor's.

const CR = 13;
const LF = 10;

/** A text or its bytes, fed in consecutive pieces (a "\r\n" may be split between two). */
export class LineStarts {
  readonly starts: number[] = [0];
  /** The offset just after the last lone "\r" seen: a "\n" there completes a "\r\n". */
  private afterCR = -1;

  /** Adds the line ends of `piece`, which starts at offset `at` of the whole text. */
  add(piece: string | Uint8Array, at: number): void {
    // Two native searches instead of a loop over every character: weight files are large.
    const find: (code: number, from: number) => number = typeof piece === 'string'
      ? (code, from) => piece.indexOf(code === CR ? '\r' : '\n', from)
      : (code, from) => piece.indexOf(code, from);
    const starts = this.starts;
    let r = find(CR, 0);
    let n = find(LF, 0);
    while (n >= 0 || r >= 0) {
      if (r >= 0 && (n < 0 || r < n)) {
        if (n === r + 1) {
          starts.push(at + n + 1); // "\r\n": one line end
          n = find(LF, n + 1);
        } else {
          starts.push(at + r + 1);
          this.afterCR = at + r + 1;
        }
        r = find(CR, r + 1);
      } else {
        const off = at + n;
        // the "\n" of a "\r\n" whose "\r" ended the previous piece: the line starts after both
        if (off === this.afterCR) starts[starts.length - 1] = off + 1;
        else starts.push(off + 1);
        n = find(LF, n + 1);
      }
    }
  }
}

/** The line starts of a whole text or its bytes. */
export function lineStarts(text: string | Uint8Array): number[] {
  const b = new LineStarts();
  b.add(text, 0);
  return b.starts;
}

// Lines end at "\n", "\r\n" or a lone "\r" (old Mac files), as VS Code counts them: every
// line:column the user sees is the same whichever a file uses (issue 8: a CR-only file reported
// every problem on line 1, e.g. 1:1714 for line 38).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../../src/cli/main';
import type { FromWorker, WorkerProblem } from '../../../src/protocol/worker';
import { tsKernel } from '../../../src/core/kernel';
import { parseJsonc } from '../../../src/model/jsonc';
import { LineIndex } from '../../../src/model/lines';
import { TextChunks } from '../../../src/model/textChunks';
import { LineStarts, lineStarts } from '../../../src/model/lineStarts';
import { DocSession } from '../../../src/worker/session';
import { REPO } from '../../helpers/fixtures';

const EOLS = { lf: '\n', crlf: '\r\n', cr: '\r' } as const;
const withEol = (text: string, eol: string): string => text.replace(/\r\n|\r|\n/g, eol);

/** The Michael Jordan sample with problems far down: an unknown activation (line 111) and a misspelled W2 (line 123). */
function brokenSample(): string {
  const text = readFileSync(join(REPO, 'samples', 'michael-jordan.ffn.json'), 'utf8').replace(/\r\n?/g, '\n');
  const broken = text.replace('"activation": "relu"', '"activation": "rleu"').replace('"W2"', '"W_2"');
  assert.notEqual(broken, text.replace('"W2"', '"W_2"'), 'the sample has "activation": "relu"');
  return broken;
}

/** What the command line writes to stderr for a text. */
async function cliProblems(text: string): Promise<string[]> {
  const err: string[] = [];
  await run(['stages', 'm.ffn.json', '--summary'], { out: () => undefined, err: (s) => err.push(s) }, () => text);
  return err.join('').split('\n').filter(Boolean);
}

async function workerProblems(text: string): Promise<WorkerProblem[]> {
  return new Promise((resolve) => {
    const s = new DocSession('doc', 'm.ffn.json', text, 1, (m: FromWorker) => {
      if (m.type === 'model') {
        s.dispose();
        resolve([...m.problems]);
      }
    }, () => tsKernel, () => 0);
  });
}

describe('line endings: \\n, \\r\\n and a lone \\r each end a line', () => {
  it('LineStarts counts each as one line end, "\\r\\n" split between pieces too', () => {
    const text = 'a\rb\r\nc\nd\n\re';
    assert.deepEqual(lineStarts(text), [0, 2, 5, 7, 9, 10]);
    assert.deepEqual(lineStarts(new TextEncoder().encode(text)), [0, 2, 5, 7, 9, 10]);
    for (let cut = 0; cut <= text.length; cut++) {
      const b = new LineStarts();
      b.add(text.slice(0, cut), 0);
      b.add(text.slice(cut), cut);
      assert.deepEqual(b.starts, [0, 2, 5, 7, 9, 10], `cut at ${cut}`);
    }
  });

  it('LineIndex gives the same line and column for LF, CRLF and CR-only text, as a string, in chunks and as bytes', () => {
    const lf = brokenSample();
    const target = lf.indexOf('"W_2"');
    const lineLf = lf.slice(0, target).split('\n').length;
    assert.ok(lineLf > 30, `the key is far down (line ${lineLf})`);
    const colLf = target - lf.lastIndexOf('\n', target - 1);
    for (const [name, eol] of Object.entries(EOLS)) {
      const text = withEol(lf, eol);
      const at = text.indexOf('"W_2"');
      for (const src of [text, new TextChunks(text, 7)]) {
        assert.deepEqual(new LineIndex(src).position(at), { line: lineLf, col: colLf }, `${name}, ${src.constructor.name}`);
      }
      // as read from disk: byte offsets (the sample has non-ASCII text above; its line is ASCII)
      const bytes = new TextEncoder().encode(text);
      assert.deepEqual(new LineIndex(bytes).position(new TextEncoder().encode(text.slice(0, at)).length), { line: lineLf, col: colLf }, `${name}, bytes`);
    }
  });

  it('the command line prints the same FILE:LINE:COL for a CR-only (and a CRLF) copy of a sample', async () => {
    const lf = await cliProblems(brokenSample());
    assert.ok(lf.length >= 2, lf.join('\n'));
    assert.ok(lf.every((l) => !/^m\.ffn\.json:1:/.test(l)), lf.join('\n'));
    assert.deepEqual(await cliProblems(withEol(brokenSample(), '\r')), lf);
    assert.deepEqual(await cliProblems(withEol(brokenSample(), '\r\n')), lf);
  });

  it("the worker's problems have the same lines and columns for a CR-only copy", async () => {
    const lines = (ps: WorkerProblem[]): unknown[] => ps.map((p) => [p.code, p.path, p.line, p.col, p.endLine, p.endCol]);
    const lf = await workerProblems(brokenSample());
    assert.ok(lf.length >= 2 && lf.every((p) => p.line > 1), JSON.stringify(lines(lf)));
    assert.deepEqual(lines(await workerProblems(withEol(brokenSample(), '\r'))), lines(lf));
    assert.deepEqual(lines(await workerProblems(withEol(brokenSample(), '\r\n'))), lines(lf));
  });

  it('the parser names the same lines in its messages ("opened on line N")', () => {
    const lost = ['{', '  "version": 1,', '  "input": [[1, 2]],', '  "ffn": {', '    "W1": [[1, 0], [0, 1]],', '    "W2": [[1, 0], [0, 1]]', '  ,', '  "head": {"W": [[1, 0]]}', '}'];
    const array = ['{', '  "version": 1,', '  "tokens": ["a", "b"', '}'];
    for (const lines of [lost, array]) {
      const lf = parseJsonc(lines.join('\n')).errors.map((e) => e.message);
      assert.match(lf.join(), /opened on line [2-9]/);
      for (const eol of ['\r', '\r\n']) assert.deepEqual(parseJsonc(lines.join(eol)).errors.map((e) => e.message), lf);
    }
  });
});

// Random editing of model files through the worker's real document session (text deltas in,
// stages out), each event followed by a bitwise comparison with a from-scratch read and forward
// pass of the same text. Used by test/unit/worker/edits.test.ts (a fixed-seed run of a few
// thousand events) and scripts/fuzz-edits.mjs (as many as asked, with a report).
//
// Formattings: the same model written as people write it (a space or a tab after `[`, one row per
// line, all on one line, CRLF, comments between rows, trailing commas). Edits: retype a number,
// type one key at a time, delete and insert rows, several cursors at once, whitespace, comments,
// another activation, stray characters, undo.
import type { FromWorker, TextChange } from '../../src/protocol/worker';
import { forward } from '../../src/core/forward';
import type { MatmulKernel } from '../../src/core/kernel';
import type { Stage } from '../../src/core/stages';
import { readModel } from '../../src/model/read';
import { DocSession } from '../../src/worker/session';
import { rng } from './random';
import { applyStageMessage } from './stageView';

// --- formattings -----------------------------------------------------------------------------------

/** JSON with comments and trailing commas → plain JSON (strings respected). */
export function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i + 2) + 2;
    } else {
      out += c;
      i++;
    }
  }
  return out.replace(/,(\s*[\]}])/g, '$1');
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Style {
  /** after `[` and before `]` of a row of numbers */
  readonly pad: string;
  readonly sep: string;
  readonly nl: string;
  readonly indent: string;
  readonly comments: boolean;
  readonly trailing: boolean;
}

function isRow(v: Json): v is number[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number');
}

function emit(v: Json, s: Style, depth: number): string {
  const ind = (d: number): string => (s.nl ? s.indent.repeat(d) : '');
  const tc = s.trailing ? ',' : '';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    if (isRow(v)) return `[${s.pad}${v.map(String).join(s.sep)}${s.trailing ? ',' : ''}${s.pad}]`;
    const items = v.map((x, i) => `${s.comments && s.nl && isRow(x) ? `${ind(depth + 1)}// row ${i}${s.nl}` : ''}${ind(depth + 1)}${emit(x, s, depth + 1)}`);
    return `[${s.nl}${items.join(`,${s.nl}`)}${tc}${s.nl}${ind(depth)}]`;
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0) return '{}';
    const items = keys.map((k) => `${ind(depth + 1)}${JSON.stringify(k)}: ${s.comments ? '/* ' + k.length + ' */ ' : ''}${emit(v[k], s, depth + 1)}`);
    return `{${s.nl}${items.join(`,${s.nl}`)}${tc}${s.nl}${ind(depth)}}`;
  }
  return JSON.stringify(v);
}

/** The same model in the formattings people use; the first is the text as given. */
export function formattings(text: string): Array<[string, string]> {
  const v = JSON.parse(stripJsonc(text)) as Json;
  const base: Style = { pad: '', sep: ', ', nl: '\n', indent: '  ', comments: false, trailing: false };
  const crlf = (t: string): string => t.replace(/\r?\n/g, '\r\n');
  return [
    ['as given', text],
    ['space after [', emit(v, { ...base, pad: ' ' }, 0)],
    ['tab after [', emit(v, { ...base, pad: '\t', sep: ',\t' }, 0)],
    ['one row per line', emit(v, base, 0)],
    ['all on one line', emit(v, { ...base, nl: '', sep: ',' }, 0)],
    ['CRLF', crlf(emit(v, { ...base, pad: ' ' }, 0))],
    ['comments between rows', emit(v, { ...base, comments: true }, 0)],
    ['trailing commas', emit(v, { ...base, trailing: true, pad: ' ' }, 0)],
    ['as given, CRLF', crlf(text)],
  ];
}

// --- a lexer for choosing where to edit ---------------------------------------------------------------

type TokKind = 'number' | 'string' | 'punct' | 'word' | 'comment' | 'space';
interface Tok { kind: TokKind; start: number; end: number }

function lex(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const s = i;
    let kind: TokKind;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
      kind = 'string';
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
      kind = 'comment';
    } else if (c === '/' && text[i + 1] === '*') {
      const e = text.indexOf('*/', i + 2);
      i = e < 0 ? text.length : e + 2;
      kind = 'comment';
    } else if (/\s/.test(c)) {
      while (i < text.length && /\s/.test(text[i])) i++;
      kind = 'space';
    } else if (/[-\d]/.test(c)) {
      while (i < text.length && /[-+\d.eE]/.test(text[i])) i++;
      kind = 'number';
    } else if (/[[\]{},:]/.test(c)) {
      i++;
      kind = 'punct';
    } else {
      while (i < text.length && /[\w$+.]/.test(text[i])) i++;
      if (i === s) i++;
      kind = 'word';
    }
    out.push({ kind, start: s, end: Math.min(i, text.length) });
  }
  return out;
}

const ACTIVATIONS = ['relu', 'gelu', 'gelu_tanh', 'silu', 'linear', 'swiglu', 'geglu', 'reglu'];

/** One event: the changes VS Code sends for one edit, each relative to the text after the previous. */
export interface EditEvent {
  readonly kind: string;
  readonly changes: TextChange[];
}

export function applyChanges(text: string, changes: readonly TextChange[]): string {
  for (const c of changes) text = text.slice(0, c.offset) + c.text + text.slice(c.offset + c.length);
  return text;
}

/** The changes that undo `changes` on the text they produced. */
function inverse(before: string, changes: readonly TextChange[]): TextChange[] {
  const inv: TextChange[] = [];
  let t = before;
  for (const c of changes) {
    inv.unshift({ offset: c.offset, length: c.text.length, text: t.slice(c.offset, c.offset + c.length) });
    t = applyChanges(t, [c]);
  }
  return inv;
}

class EditGen {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = rng(seed);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  /** A number as people type them. */
  number(): string {
    const k = this.int(8);
    const mag = this.r() * (k < 2 ? 3 : 40) - (k < 2 ? 1.5 : 20);
    if (k === 0) return String(this.int(10));
    if (k === 1) return mag.toExponential(this.int(4));
    if (k === 2) return '-0';
    if (k === 3) return (this.r() * 1e-3).toPrecision(3);
    return mag.toFixed(this.int(7));
  }

  /** The next edit event (or a keystroke sequence: several events) for `text`. */
  next(text: string): EditEvent[] {
    const toks = lex(text);
    const nums = toks.filter((t) => t.kind === 'number');
    const k = this.r();
    const retype = (t: Tok): TextChange => ({ offset: t.start, length: t.end - t.start, text: this.number() });
    if (nums.length === 0 || k < 0.05) return [{ kind: 'stray', changes: [this.stray(toks)] }];
    if (k < 0.38) return [{ kind: 'retype', changes: [retype(this.pick(nums))] }];
    if (k < 0.5) return this.keys(this.pick(nums), text);
    if (k < 0.62) {
      // several cursors: distinct numbers, sent last first so each offset holds as it is applied
      const picked = new Set<Tok>();
      const n = 2 + this.int(3);
      for (let i = 0; i < n; i++) picked.add(this.pick(nums));
      const changes = [...picked].sort((a, b) => b.start - a.start).map(retype);
      return [{ kind: 'multi', changes }];
    }
    if (k < 0.72) return [{ kind: 'space', changes: [this.space(toks)] }];
    if (k < 0.78) return [{ kind: 'comment', changes: [this.comment(toks)] }];
    if (k < 0.86) {
      const row = this.row(text, toks);
      if (row) return [{ kind: this.chance(0.5) ? 'delete row' : 'insert row', changes: [row] }];
      return [{ kind: 'retype', changes: [retype(this.pick(nums))] }];
    }
    if (k < 0.9) {
      const act = toks.findIndex((t, i) => t.kind === 'string' && text.slice(t.start, t.end) === '"activation"' && i >= 0);
      const val = act >= 0 ? toks.slice(act + 1).find((t) => t.kind === 'string') : undefined;
      if (val) return [{ kind: 'activation', changes: [{ offset: val.start, length: val.end - val.start, text: `"${this.pick(ACTIVATIONS)}"` }] }];
    }
    return [{ kind: 'retype', changes: [retype(this.pick(nums))] }];
  }

  /** Backspace over a number (or part of it), then type another one key by key. */
  private keys(t: Tok, text: string): EditEvent[] {
    const out: EditEvent[] = [];
    const old = text.slice(t.start, t.end);
    const keep = this.int(old.length);
    for (let end = t.end; end > t.start + keep; end--) out.push({ kind: 'key', changes: [{ offset: end - 1, length: 1, text: '' }] });
    const typed = this.number();
    for (let i = 0; i < typed.length; i++) out.push({ kind: 'key', changes: [{ offset: t.start + keep + i, length: 0, text: typed[i] }] });
    return out;
  }

  private boundary(toks: Tok[]): number {
    const t = this.pick(toks);
    return this.chance(0.5) ? t.start : t.end;
  }

  private space(toks: Tok[]): TextChange {
    const spaces = toks.filter((t) => t.kind === 'space');
    if (spaces.length && this.chance(0.3)) {
      const s = this.pick(spaces);
      return { offset: s.start, length: s.end - s.start, text: this.chance(0.5) ? '' : ' ' };
    }
    return { offset: this.boundary(toks), length: 0, text: this.pick([' ', '\t', '\n', '\r\n', '  ', ' \n  ']) };
  }

  private comment(toks: Tok[]): TextChange {
    const comments = toks.filter((t) => t.kind === 'comment');
    if (comments.length && this.chance(0.3)) {
      const c = this.pick(comments);
      return { offset: c.start, length: c.end - c.start, text: '' };
    }
    return { offset: this.boundary(toks), length: 0, text: this.pick(['/* note */', '// note\n', '/**/', '//\n']) };
  }

  private stray(toks: Tok[]): TextChange {
    return { offset: toks.length ? this.boundary(toks) : 0, length: 0, text: this.pick(['x', ']', ',', '[', '"', '}', '0', '.']) };
  }

  /** Deletes a row of a matrix with its comma, or inserts a copy of it (or a new random one) after it. */
  private row(text: string, toks: Tok[]): TextChange | null {
    const rows: Array<{ start: number; end: number; n: number }> = [];
    for (let i = 0; i < toks.length; i++) {
      if (text[toks[i].start] !== '[' || toks[i].kind !== 'punct') continue;
      let j = i + 1;
      let n = 0;
      while (j < toks.length && (toks[j].kind === 'number' || toks[j].kind === 'space' || text[toks[j].start] === ',')) {
        if (toks[j].kind === 'number') n++;
        j++;
      }
      if (j < toks.length && text[toks[j].start] === ']' && n > 0) rows.push({ start: toks[i].start, end: toks[j].end, n });
    }
    if (!rows.length) return null;
    const r = this.pick(rows);
    const after = text.slice(r.end).match(/^\s*,/);
    if (this.chance(0.5)) {
      // delete: the row and the comma after it (or before it, for the last row)
      if (after) return { offset: r.start, length: r.end - r.start + after[0].length, text: '' };
      const before = text.slice(0, r.start).match(/,\s*$/);
      return before ? { offset: r.start - before[0].length, length: r.end - r.start + before[0].length, text: '' } : null;
    }
    const copy = this.chance(0.5) ? text.slice(r.start, r.end) : `[${Array.from({ length: r.n }, () => this.number()).join(', ')}]`;
    return { offset: r.end, length: 0, text: `, ${copy}` };
  }
}

// --- the session under test ------------------------------------------------------------------------

/** What a panel would show: every stage's latest numbers (a `kept` keeps the last ones). */
class Probe {
  readonly session: DocSession;
  version = 1;
  text: string;
  private view = new Map<string, { shape: readonly number[]; data: Float32Array }>();
  private last: Extract<FromWorker, { type: 'model' | 'done' }> | null = null;
  readonly logs: string[] = [];

  constructor(readonly fileName: string, text: string, kernel: MatmulKernel) {
    this.text = text;
    this.session = new DocSession('doc', fileName, text, 1, (m) => this.on(m), () => kernel, () => 0);
    this.session.subscribe(true);
    this.session.flush();
  }

  private on(m: FromWorker): void {
    if (m.type === 'log') this.logs.push(m.message);
    else {
      const complaint = applyStageMessage(this.view, m);
      if (complaint) this.logs.push(complaint);
    }
    if (m.type === 'model' || m.type === 'done') this.last = m;
  }

  /** One event: returns an error message if `change()` threw. */
  send(changes: readonly TextChange[]): string | null {
    this.text = applyChanges(this.text, changes);
    this.version++;
    try {
      this.session.change(this.version, changes, this.text.length);
      this.session.flush();
    } catch (e) {
      return `change() threw: ${(e as Error).message}`;
    }
    return null;
  }

  /** Differences from a from-scratch read and forward pass of the same text, or null. */
  check(kernel: MatmulKernel): { valid: boolean; wrong: string | null } {
    const fresh = readModel(this.text, this.fileName);
    const last = this.last;
    const problems = (ps: ReadonlyArray<{ code: string; start: number; end: number; message: string }>): string =>
      JSON.stringify(ps.map((p) => [p.code, p.start, p.end, p.message]));
    if (!fresh.file) {
      if (!last || last.type !== 'model' || last.version !== this.version || last.summary !== null) return { valid: false, wrong: `a fresh read has errors, the session said ${last?.type} of version ${last?.version}` };
      if (problems(last.problems) !== problems(fresh.problems)) return { valid: false, wrong: `problems differ: ${problems(last.problems)} vs ${problems(fresh.problems)}` };
      return { valid: false, wrong: null };
    }
    if (!last || last.type !== 'done' || last.version !== this.version) return { valid: true, wrong: `no render of version ${this.version} (last: ${last?.type} ${last?.version})` };
    const want: Stage[] = forward(fresh.file.model, kernel);
    const ids = new Set(want.map((s) => s.id));
    for (const id of this.view.keys()) if (!ids.has(id)) this.view.delete(id); // (a stage of an older model)
    for (const s of want) {
      const got = this.view.get(s.id);
      if (!got) return { valid: true, wrong: `stage ${s.id} missing` };
      if (got.shape.join() !== s.shape.join()) return { valid: true, wrong: `stage ${s.id} is [${got.shape}], a fresh run gives [${s.shape}]` };
      const a = new Uint32Array(got.data.buffer, got.data.byteOffset, got.data.length);
      const b = new Uint32Array(s.data.buffer, s.data.byteOffset, s.data.length);
      for (let i = 0; i < a.length; i++) {
        if (a[i] !== b[i] && !(Number.isNaN(got.data[i]) && Number.isNaN(s.data[i]))) {
          return { valid: true, wrong: `stage ${s.id}[${i}] = ${got.data[i]}, a fresh run gives ${s.data[i]}` };
        }
      }
    }
    return { valid: true, wrong: null };
  }

  dispose(): void {
    this.session.dispose();
  }
}

export interface FuzzResult {
  events: number;
  valid: number;
  incremental: number;
  wrong: number;
  exceptions: number;
  /** The first few failures, each with the event and the text before it. */
  failures: string[];
  byKind: Record<string, number>;
}

/** `events` random edit events on `text` through a DocSession, each checked against a fresh read and forward. */
export function fuzzEdits(fileName: string, text: string, kernel: MatmulKernel, seed: number, events: number): FuzzResult {
  const gen = new EditGen(seed);
  const probe = new Probe(fileName, text, kernel);
  const res: FuzzResult = { events: 0, valid: 0, incremental: 0, wrong: 0, exceptions: 0, failures: [], byKind: {} };
  const history: TextChange[][] = [];
  let badRun = 0;
  const fail = (what: string, ev: EditEvent, before: string): void => {
    if (res.failures.length < 5) res.failures.push(`${fileName}, event ${res.events} (${ev.kind} ${JSON.stringify(ev.changes)}): ${what}\n--- text before:\n${before}`);
  };
  const first = probe.check(kernel);
  if (first.wrong) res.failures.push(`${fileName}: the first render is wrong: ${first.wrong}`);
  while (res.events < events) {
    // undo now and then, and always after a long spell of broken text
    let batch: EditEvent[];
    if (history.length && (gen.chance(0.12) || badRun > 6)) {
      const inv = history.pop()!;
      batch = [{ kind: 'undo', changes: inv }];
    } else batch = gen.next(probe.text);
    for (const ev of batch) {
      if (res.events >= events) break;
      const before = probe.text;
      const incBefore = probe.session.incrementalEdits;
      const threw = probe.send(ev.changes);
      if (ev.kind !== 'undo') history.push(inverse(before, ev.changes));
      if (history.length > 50) history.shift();
      res.events++;
      res.byKind[ev.kind] = (res.byKind[ev.kind] ?? 0) + 1;
      if (probe.session.incrementalEdits > incBefore) res.incremental++;
      const logs = probe.logs.splice(0);
      if (threw || logs.length) {
        res.exceptions++;
        fail(threw ?? logs.join('; '), ev, before);
      }
      const c = probe.check(kernel);
      if (c.valid) res.valid++;
      badRun = c.valid ? 0 : badRun + 1;
      if (c.wrong) {
        res.wrong++;
        fail(c.wrong, ev, before);
      }
    }
  }
  probe.dispose();
  return res;
}

// Tokenizing under a time budget, apart from the compute worker. A tokenizer.json can carry its own
// regular expressions (a Split pre-tokenizer, a Replace), and JavaScript's engine backtracks: `(a+)+$`
// on 34 `a`s and a `!` runs for minutes. So the library runs in a thread of its own (the platform
// starts it: worker_threads on Node, a nested Web Worker on the web), one request at a time; a
// request that runs over its budget gets the thread stopped and a message that says so and names
// the pattern that is likely to blame, and the next request starts a fresh thread (loading its
// tokenizer there again). The worker itself never waits: a prompt's ids are asked for ahead
// (`encodeAhead`) and read when they are in (`encode`), kept per text for the next reads.
//
// Where no thread can be started, the library runs in the worker, and a tokenizer whose pattern may
// backtrack without end (backtracking.ts) is refused instead.

import { quote } from '../common/quote';
import { backtrackingPatterns } from './backtracking';
import type { FromTokenizerThread, SpawnTokenizerThread, ToTokenizerThread, TokenizerThread } from './threadProtocol';
import { firstLine, labelsOf, loadTokenizer, TokenizerError, type LoadedTokenizer } from './tokenizer';
import { checkTokenizerJson, type FilePattern } from './tokenizerJson';
import { tokenBytes } from './tokenBytes';

export interface Encoded {
  readonly ids: readonly number[];
  readonly tokens: readonly string[];
}

/** A loaded tokenizer as the worker holds it: labels now, a text's ids once asked for ahead. */
export interface BudgetedTokenizer {
  /** 1 + the largest id it knows. */
  readonly vocabSize: number;
  label(id: number): string;
  /** The bytes a token stands for, as the decoder joins them (`<0xE3>` → E3); null outside the vocabulary. */
  bytes(id: number): Uint8Array | null;
  /** null when the text's ids (or why there are none) are known; else a promise that settles when they are. */
  encodeAhead(text: string): Promise<void> | null;
  /** The ids encodeAhead found (throws a TokenizerError with its failure, or when it was not asked for). */
  encode(text: string): Encoded;
  /** Frees it in its thread. */
  dispose(): void;
}

export interface RunnerBudgets {
  /** How long one text may take to tokenize. */
  readonly encodeMs: number;
  /** How long a tokenizer.json may take to load, plus `loadMsPerMB` a megabyte (GPT-2's 1.3 MB takes 0.3-2.5 s). */
  readonly loadMs: number;
  readonly loadMsPerMB: number;
}

export const DEFAULT_BUDGETS: RunnerBudgets = { encodeMs: 2000, loadMs: 30_000, loadMsPerMB: 10_000 };
/** Texts whose ids are kept per tokenizer (a model file's prompt and corrupted prompt, a few edits back). */
const KEPT = 32;

interface Entry {
  readonly key: number;
  readonly json: string;
  readonly config: string | undefined;
  readonly file: string;
  patterns: readonly FilePattern[] | null;
  /** Loaded in the worker itself (no thread). */
  local: LoadedTokenizer | null;
  /** Its load ran over its budget. */
  over?: boolean;
}

interface Live {
  readonly thread: TokenizerThread;
  readonly loaded: Set<number>;
  /** Whether it ever took a request (one that fails before is taken for a platform without threads). */
  started: boolean;
  pending: { req: number; started(): void; answer(m: FromTokenizerThread): void; failed(message: string, noThread: boolean): void } | null;
}

type Request = Exclude<ToTokenizerThread, { type: 'drop' }>;

/** The thread could not run at all: the request goes to the in-worker path. */
class NoThread extends Error {}

export class TokenizerRunner {
  private live: Live | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private req = 0;
  private keys = 0;
  /** Files whose load ran over its budget, and what was said: not tried again (the store retries a failure on a later read). */
  private readonly overran = new Map<string, string>();

  /** `spawn`: how the platform starts a tokenizer thread (null: none; the library runs in the caller's thread). */
  constructor(private spawn: SpawnTokenizerThread | null, private readonly budgets: RunnerBudgets = DEFAULT_BUDGETS) {}

  /** Whether tokenizing runs apart (false once a thread failed to start). */
  get threaded(): boolean {
    return this.spawn !== null;
  }

  /** Loads a tokenizer.json (`file`: its name, for messages); rejects with a TokenizerError. */
  async load(json: string, config: string | undefined, file: string): Promise<BudgetedTokenizer> {
    const entry: Entry = { key: ++this.keys, json, config, file, patterns: null, local: null };
    const id = `${config ?? ''}\u0000${json}`;
    const over = this.overran.get(id);
    if (over !== undefined) throw new TokenizerError(over);
    const v = await this.serial(() => this.loadIn(entry)).catch((e: unknown) => {
      if (e instanceof TokenizerError && entry.over) {
        if (this.overran.size >= 8) this.overran.delete(this.overran.keys().next().value!);
        this.overran.set(id, e.message);
      }
      throw e;
    });
    entry.patterns = v.patterns;
    const raw = new Map<number, string>();
    for (let i = 0; i < v.ids.length; i++) raw.set(v.ids[i], v.tokens[i]);
    return this.budgeted(entry, v.vocabSize, (id) => raw.get(id), v.byteLevel);
  }

  /** Stops the thread (the worker is going away). */
  dispose(): void {
    this.live?.thread.terminate();
    this.live = null;
  }

  private serial<T>(job: () => Promise<T>): Promise<T> {
    const run = this.chain.then(job, job);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async loadIn(entry: Entry): Promise<{ vocabSize: number; byteLevel: boolean; patterns: readonly FilePattern[]; ids: ArrayLike<number>; tokens: readonly string[] }> {
    if (this.spawn) {
      try {
        const live = this.thread();
        const m = await this.send(live, this.loadMessage(entry), this.loadBudget(entry), () => this.loadOver(entry));
        if (m.type !== 'loaded') throw new TokenizerError(`${entry.file}: the tokenizer thread answered ${m.type}`);
        live.loaded.add(entry.key);
        return m;
      } catch (e) {
        if (!(e instanceof NoThread)) throw e;
      }
    }
    const t = this.local(entry);
    const ids: number[] = [];
    const tokens: string[] = [];
    for (let id = 0; id < t.vocabSize; id++) {
      const tok = t.token(id);
      if (tok === undefined) continue;
      ids.push(id);
      tokens.push(tok);
    }
    return { vocabSize: t.vocabSize, byteLevel: t.byteLevel, patterns: t.patterns, ids, tokens };
  }

  private async encodeIn(entry: Entry, text: string): Promise<Encoded> {
    if (this.spawn) {
      try {
        const live = this.thread();
        if (!live.loaded.has(entry.key)) { // (a fresh thread: the last one was stopped)
          await this.send(live, this.loadMessage(entry), this.loadBudget(entry), () => this.loadOver(entry));
          live.loaded.add(entry.key);
        }
        const m = await this.send(live, { type: 'encode', req: ++this.req, key: entry.key, text }, this.budgets.encodeMs, () => this.encodeOver(entry));
        if (m.type !== 'encoded') throw new TokenizerError(`the tokenizer thread answered ${m.type}`);
        return m;
      } catch (e) {
        if (!(e instanceof NoThread)) throw e;
      }
    }
    return this.local(entry).encode(text);
  }

  /** The library in this thread, refusing a pattern it could not stop. */
  private local(entry: Entry): LoadedTokenizer {
    entry.local ??= loadTokenizer(entry.json, entry.config, entry.file, (checked) => {
      const bad = backtrackingPatterns(checked.patterns)[0];
      if (bad) throw new TokenizerError(`${entry.file}: its pattern at ${bad.at}, ${quote(bad.source)}, may backtrack without end, and here the tokenizer cannot run apart from the worker, where it could be stopped`);
    });
    return entry.local;
  }

  private loadMessage(entry: Entry): Request {
    return { type: 'load', req: ++this.req, key: entry.key, json: entry.json, config: entry.config, file: entry.file };
  }

  private loadBudget(entry: Entry): number {
    return this.budgets.loadMs + this.budgets.loadMsPerMB * (entry.json.length / 1e6);
  }

  private loadOver(entry: Entry): string {
    entry.over = true;
    if (entry.patterns === null) {
      try {
        entry.patterns = checkTokenizerJson(JSON.parse(entry.json) as Record<string, unknown>, entry.file).patterns;
      } catch {
        entry.patterns = [];
      }
    }
    return `${entry.file}: reading it took more than ${seconds(this.loadBudget(entry))} and was stopped${culprit(entry.patterns)}`;
  }

  private encodeOver(entry: Entry): string {
    return `it ran for more than ${seconds(this.budgets.encodeMs)} on this text and was stopped${culprit(entry.patterns ?? [])}`;
  }

  private thread(): Live {
    if (this.live) return this.live;
    let thread: TokenizerThread;
    try {
      thread = this.spawn!();
    } catch {
      this.spawn = null;
      throw new NoThread();
    }
    const live: Live = { thread, loaded: new Set(), started: false, pending: null };
    thread.onMessage((m) => {
      const p = live.pending;
      if (!p || m.req !== p.req) return;
      if (m.type === 'started') {
        live.started = true;
        p.started();
      } else p.answer(m);
    });
    thread.onError((message) => {
      if (this.live !== live) return; // (one this runner stopped)
      this.live = null;
      thread.terminate();
      if (!live.started) this.spawn = null; // never ran: a platform where it cannot
      live.pending?.failed(`the tokenizer's thread stopped (${message})`, !live.started);
    });
    return (this.live = live);
  }

  /** Posts a request; its answer, or a TokenizerError (`over()` when it ran past `budgetMs`: the thread is stopped). */
  private send(live: Live, msg: Request, budgetMs: number, over: () => string): Promise<FromTokenizerThread> {
    return new Promise<FromTokenizerThread>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (): void => {
        clearTimeout(timer);
        live.pending = null;
        live.thread.hold?.(false);
      };
      live.pending = {
        req: msg.req,
        started: () => {
          timer = setTimeout(() => {
            settle();
            if (this.live === live) this.live = null;
            live.thread.terminate();
            reject(new TokenizerError(over()));
          }, budgetMs);
        },
        answer: (m) => {
          settle();
          if (m.type === 'failed') reject(new TokenizerError(m.message));
          else resolve(m);
        },
        failed: (message, noThread) => {
          settle();
          reject(noThread ? new NoThread() : new TokenizerError(message));
        },
      };
      live.thread.hold?.(true);
      live.thread.post(msg);
    });
  }

  private budgeted(entry: Entry, vocabSize: number, token: (id: number) => string | undefined, byteLevel: boolean): BudgetedTokenizer {
    type Known = { readonly ids: Encoded } | { readonly failed: string } | { readonly done: Promise<void> };
    const known = new Map<string, Known>();
    const keep = (text: string, k: Known): void => {
      known.delete(text);
      known.set(text, k);
      for (const [t, v] of known) { // the oldest settled ones past KEPT
        if (known.size <= KEPT) break;
        if (!('done' in v)) known.delete(t);
      }
    };
    return {
      vocabSize,
      label: labelsOf(token, byteLevel),
      bytes: (id) => tokenBytes(token(id), byteLevel),
      encodeAhead: (text) => {
        const k = known.get(text);
        if (k) {
          if ('done' in k) return k.done;
          keep(text, k); // (most recently used)
          return null;
        }
        if (entry.local && !this.spawn) { // (no thread: now)
          try {
            keep(text, { ids: entry.local.encode(text) });
          } catch (e) {
            keep(text, { failed: e instanceof TokenizerError ? e.message : `the tokenizer failed: ${firstLine(e)}` });
          }
          return null;
        }
        const done = this.serial(() => this.encodeIn(entry, text)).then(
          (ids) => keep(text, { ids }),
          (e: unknown) => keep(text, { failed: e instanceof TokenizerError ? e.message : `the tokenizer failed: ${firstLine(e)}` }),
        );
        keep(text, { done });
        return done;
      },
      encode: (text) => {
        const k = known.get(text);
        if (k && 'ids' in k) return k.ids;
        throw new TokenizerError(k && 'failed' in k ? k.failed : 'the text is still being tokenized');
      },
      dispose: () => {
        if (this.live?.loaded.delete(entry.key)) this.live.thread.post({ type: 'drop', key: entry.key });
        entry.local = null;
      },
    };
  }
}

/** The pattern that is likely to blame for a tokenizer running over its time. */
function culprit(patterns: readonly FilePattern[]): string {
  const bad = backtrackingPatterns(patterns);
  if (bad.length > 0) return `: its pattern at ${bad[0].at}, ${quote(bad[0].source)}, may backtrack without end`;
  if (patterns.length > 0) return `: its own pattern${patterns.length > 1 ? 's' : ''} (at ${patterns.slice(0, 3).map((p) => p.at).join(', ')}) may backtrack without end`;
  return '';
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

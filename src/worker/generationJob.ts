// A document's generation (ToWorker `generate`): tokens decoded after its input as its "generate"
// says (src/core/decode.ts), a slice of stages at a time between the worker's other messages, each
// token posted as it is chosen with its top_k (src/protocol/generation.ts). An edit stops it; once
// the edited text's run ends it begins again on the new model, for as long as it is on.
//
// It has an engine of its own: the document's keeps the document's run for the panel and the
// hovers, while this one's last run grows by a token a step (the append path: the KV cache).
// A generation that ended (done, or cancelled) keeps that engine until the next begins or the text
// changes: the generated tokens' stages are the ones of its run with the last token appended
// (generationSequence.ts), computed when the panel asks for them, not while generating.

import { decode, DecodeError, type DecodedToken, type Decoding } from '../core/decode';
import { Engine } from '../core/engine';
import type { MatmulKernel } from '../core/kernel';
import type { ModelFile } from '../model/read';
import type { GeneratedToken, GenerationEnd, GenerationMessage } from '../protocol/generation';
import { fileSettings, joinedText, tokenTexts } from './generationText';
import { sequenceRun, type SequenceRun } from './generationSequence';
import { internalFault } from '../common/faultText';

/** How long a slice runs before the worker reads its messages. */
const SLICE_MS = 20;

interface Job {
  readonly version: number;
  readonly file: ModelFile;
  readonly engine: Engine;
  readonly ids: number[];
  stopped: boolean;
  /** Its sequence's run, once asked for (the job ended). */
  sequence?: SequenceRun | null;
}

export class DocGeneration {
  /** Asked for (and not cancelled): a new run's model generates again. */
  private on = false;
  private job: Job | null = null;
  /** The last job that ended done or cancelled, with its engine: the generated tokens' stages come from it. */
  private finished: Job | null = null;

  constructor(private readonly doc: string, private readonly post: (m: GenerationMessage) => void, private readonly kernel: () => MatmulKernel) {}

  get active(): boolean {
    return this.on;
  }

  /** On (with the current model if it is known now, else at the next run's end), or off: Cancel. */
  set(on: boolean, current: { version: number; file: ModelFile } | null, why: string | null): void {
    this.on = on;
    if (!on) return this.stop('cancelled');
    if (current) this.start(current.version, current.file);
    else if (why) this.post({ type: 'generation', event: 'end', doc: this.doc, version: -1, reason: 'error', message: why, note: null, text: '', ms: 0 });
  }

  /** The document's run of `version` ended: generate on its model (again), if generation is on. */
  runEnded(version: number, file: ModelFile): void {
    if (this.on && this.job?.version !== version) this.start(version, file);
  }

  /** The text changed (`changed`), or the document closed: the job under way ends. */
  stop(reason: GenerationEnd = 'changed'): void {
    if (reason !== 'cancelled') this.keep(null);
    const j = this.job;
    if (!j) return;
    j.stopped = true;
    this.job = null;
    if (reason === 'cancelled') this.keep(j);
    else j.engine.dispose();
    this.post({ type: 'generation', event: 'end', doc: this.doc, version: j.version, reason, message: null, note: null, text: joinedText(j.file, j.ids), ms: 0 });
  }

  dispose(): void {
    this.on = false;
    this.stop('cancelled');
    this.keep(null);
  }

  /**
   * The run of the input and the tokens generated from the text of `version` (their stages: a row
   * each), once that generation has ended; null if it has not, or generated nothing.
   */
  sequence(version: number): SequenceRun | null {
    const j = this.finished;
    if (!j || j.version !== version || j.ids.length === 0) return null;
    if (j.sequence === undefined) j.sequence = sequenceRun(j.engine, j.file, j.ids);
    return j.sequence;
  }

  /** The ended job kept (its engine: the sequence's stages), the one kept before let go. */
  private keep(j: Job | null): void {
    if (this.finished && this.finished !== j) this.finished.engine.dispose();
    this.finished = j;
  }

  private start(version: number, file: ModelFile): void {
    this.stop('changed');
    const settings = fileSettings(file);
    const text = tokenTexts(file);
    const job: Job = { version, file, engine: new Engine(this.kernel()), ids: [], stopped: false };
    this.job = job;
    const base = { type: 'generation' as const, doc: this.doc, version };
    const t0 = performance.now();
    const end = (reason: GenerationEnd, message: string | null, note: string | null): void => {
      if (this.job === job) this.job = null;
      if (reason === 'done') this.keep(job);
      else job.engine.dispose();
      this.post({ ...base, event: 'end', reason, message, note, text: joinedText(file, job.ids), ms: performance.now() - t0 });
    };
    let steps: Generator<DecodedToken | null, Decoding, void>;
    try {
      steps = decode(job.engine, file.model, settings, { maxPositions: file.checkpoint?.source.maxPositions ?? null });
    } catch (e) {
      return end('error', messageOf(e), null);
    }
    const total = settings.tokens;
    this.post({ ...base, event: 'start', settings, prompt: (file.model.spec.embedding.kind === 'tokens' ? file.model.spec.embedding.ids : []).map(text), total });
    const slice = (): void => {
      if (job.stopped) return;
      const until = performance.now() + SLICE_MS;
      try {
        for (;;) {
          const r = steps.next();
          if (r.done) return end('done', null, r.value.note);
          if (r.value) {
            job.ids.push(r.value.id);
            this.post({ ...base, event: 'token', token: generated(r.value, text), done: job.ids.length, total });
          }
          if (performance.now() >= until) break;
        }
      } catch (e) {
        return end('error', messageOf(e), null);
      }
      setTimeout(slice, 0);
    };
    setTimeout(slice, 0);
  }
}

/** A token as posted: its text and its alternatives' (the step's stages stay here). */
function generated(t: DecodedToken, text: (id: number) => { id: number; text: string }): GeneratedToken {
  return { index: t.index, ...text(t.id), top: t.top.map((a) => ({ ...text(a.id), p: a.p, ...(a.q === undefined ? {} : { q: a.q }) })) };
}

function messageOf(e: unknown): string {
  if (e instanceof DecodeError) return e.message;
  return internalFault('generating', e);
}

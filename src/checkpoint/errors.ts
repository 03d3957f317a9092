// The one error the checkpoint loader throws: a plain one-line message that says what is wrong and
// what was expected (the model file shows it at its `checkpoint` key, never a stack trace), with
// the file and the tensor it is about when there is one.

import { internalFault } from '../common/faultText';
import { quote, quotePath, terminalSafe } from '../common/quote';
import { isOutOfMemory } from '../core/runSize';
import { TokenizerError } from '../tokenizer/tokenizerError';

/** The longest message a CheckpointError keeps: whatever a file brought in, a message stays a line. */
export const MESSAGE_MAX = 400;

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  readonly file?: string;
  readonly tensor?: string;

  constructor(message: string, where: { readonly file?: string; readonly tensor?: string } = {}) {
    super(oneLine(message));
    if (where.file !== undefined) this.file = where.file;
    if (where.tensor !== undefined) this.tensor = where.tensor;
  }
}

// The last line of defence, whatever a file name or a JSON value brought in: one line, control
// and bidi characters as escapes (nothing a terminal acts on), at most MESSAGE_MAX characters.
function oneLine(message: string): string {
  const flat = message.length > 4 * MESSAGE_MAX ? message.slice(0, 4 * MESSAGE_MAX) : message;
  const text = terminalSafe(flat.replace(/\s*[\r\n]+\s*/g, ' '), false);
  if (text.length <= MESSAGE_MAX && flat.length === message.length) return text;
  let cut = text.slice(0, MESSAGE_MAX - 1);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/**
 * A name from a file (a tensor's, a shard's) for a message: as it is when it is a plain name
 * (`h.0.attn.c_attn.weight`, `model-00001-of-00002.safetensors`), else quote()d: bounded, every
 * character visible.
 */
export function named(name: string): string {
  if (/^[\w.\-/]{1,80}$/.test(name)) return name;
  // (a long path keeps its end, where the file's name is)
  return /[\\/]/.test(name) ? quotePath(name) : quote(name);
}

/** An error whose message is already ours (the loader's, the tokenizer's): said as it is. */
export function isOurs(e: unknown): e is Error {
  return e instanceof CheckpointError || e instanceof TokenizerError;
}

/**
 * Any error as one of ours: an unforeseen one (a TypeError, a RangeError out of a library or of our
 * own code) said as an internal fault in `step` ("reading config.json"), the engine's text after
 * it, bounded; the memory running out said as that (no bug: the machine's limit).
 */
export function asOurs(e: unknown, step: string): Error {
  if (isOurs(e)) return e;
  if (isOutOfMemory(e)) return new CheckpointError(`the memory ran out while ${step}: close other model files, or open a smaller model`);
  return new CheckpointError(internalFault(step, e));
}

/** `f`, with whatever it throws made ours (asOurs) as a fault of `step`. */
export async function inStep<T>(step: string, f: () => Promise<T> | T): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw asOurs(e, step);
  }
}

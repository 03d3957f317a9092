// The checkpoint fuzzer's witness of file access: node:fs and node:fs/promises patched in place
// (before the command line's bundle is loaded, which looks its functions up on the module at each
// call), so every path the product touches is seen whatever its own code believes it does.
// Each path is placed after following symlinks (the last part too, for calls that follow it) and
// compared with the zones a case allows: the checkpoint folder, its Hugging Face cache blobs, the
// model file and what the model file's own keys name.

import { createRequire } from 'node:module';
import * as path from 'node:path';

// the module object itself (a bundler's `import * as` gives a copy with getters, which cannot be patched)
const fs = createRequire(__filename)('node:fs') as typeof import('node:fs');

export interface Access {
  readonly op: string;
  /** As the product gave it. */
  readonly path: string;
  /** Where it lands, symlinks followed. */
  readonly real: string;
}

/** Calls that look at the file itself (symlinks followed); the others (lstat, readlink, realpath) look at the link. */
const FOLLOWING = [
  'open', 'readFile', 'stat', 'access', 'exists', 'readdir', 'opendir', 'createReadStream', 'statfs', 'openAsBlob',
  'appendFile', 'writeFile', 'truncate', 'copyFile', 'cp', 'rm', 'unlink', 'rename', 'mkdir', 'rmdir', 'chmod', 'chown', 'utimes',
];
const NOT_FOLLOWING = ['lstat', 'readlink', 'realpath'];

const original = {
  realpathSync: fs.realpathSync.native,
};

let installed = false;
let recording: Access[] | null = null;
let depth = 0;

/** Where `p` lands: the deepest part that exists with its symlinks followed, the rest as written (`follow` false: the last part not followed). */
export function landing(p: string, follow = true): string {
  const abs = path.resolve(p);
  if (!follow) {
    const dir = path.dirname(abs);
    return dir === abs ? abs : path.join(landing(dir, true), path.basename(abs));
  }
  let head = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      return path.join(original.realpathSync(head), ...tail.reverse());
    } catch {
      const up = path.dirname(head);
      if (up === head) return abs;
      tail.push(path.basename(head));
      head = up;
    }
  }
}

function pathOf(arg: unknown): string | null {
  if (typeof arg === 'string') return arg;
  if (arg instanceof URL) return arg.protocol === 'file:' ? decodeURIComponent(arg.pathname) : null;
  if (Buffer.isBuffer(arg)) return arg.toString('utf8');
  return null; // (a file descriptor or handle: its opening was seen)
}

function note(op: string, arg: unknown, follow: boolean): void {
  if (!recording) return;
  const p = pathOf(arg);
  if (p === null || p.includes('\0')) return; // (Node refuses a path with a NUL byte before touching anything)
  let real: string;
  try {
    real = landing(p, follow);
  } catch {
    real = path.resolve(p);
  }
  recording.push({ op, path: p, real });
}

function wrap(target: Record<string, unknown>, name: string, op: string, follow: boolean): void {
  const fn = target[name];
  if (typeof fn !== 'function') return;
  const wrapped = function (this: unknown, ...args: unknown[]): unknown {
    // (a call Node makes inside another, readFileSync's openSync, is that one's: not seen twice)
    if (depth === 0) {
      note(op, args[0], follow);
      if (op === 'copyFile' || op === 'cp' || op === 'rename') note(op, args[1], follow);
    }
    depth++;
    try {
      return (fn as (...a: unknown[]) => unknown).apply(this, args);
    } finally {
      depth--;
    }
  };
  // realpathSync.native and realpath.native ride along
  for (const k of Object.keys(fn)) (wrapped as unknown as Record<string, unknown>)[k] = (fn as unknown as Record<string, unknown>)[k];
  target[name] = wrapped;
}

/** Patches node:fs (callback, sync and promise forms) once per process. */
export function installWatch(): void {
  if (installed) return;
  installed = true;
  const f = fs as unknown as Record<string, unknown>;
  const p = fs.promises as unknown as Record<string, unknown>;
  for (const [ops, follow] of [[FOLLOWING, true], [NOT_FOLLOWING, false]] as const) {
    for (const op of ops) {
      wrap(f, op, op, follow);
      wrap(f, `${op}Sync`, op, follow);
      wrap(p, op, op, follow);
    }
  }
  const rp = fs.realpathSync as unknown as { native?: unknown };
  if (rp.native) wrap(rp as Record<string, unknown>, 'native', 'realpath', false);
  const rpa = fs.realpath as unknown as { native?: unknown };
  if (rpa.native) wrap(rpa as Record<string, unknown>, 'native', 'realpath', false);
}

/** Starts recording every access (for one case). */
export function startRecording(): void {
  recording = [];
}

/** Stops recording; the accesses seen since startRecording. */
export function stopRecording(): Access[] {
  const r = recording ?? [];
  recording = null;
  return r;
}

/** A folder zone (everything under it) or one file. */
export interface Zone {
  readonly path: string;
  readonly folder: boolean;
}

/** Whether `real` (a landing) lies in one of the zones (each zone given as a landing too). */
export function inZones(real: string, zones: readonly Zone[]): boolean {
  return zones.some((z) => (z.folder ? real === z.path || real.startsWith(z.path.endsWith(path.sep) ? z.path : z.path + path.sep) : real === z.path));
}

/**
 * The zones a case may touch: the checkpoint folder (and, for a folder of the Hugging Face cache,
 * `snapshots/REV`, the repository's `blobs/` its files link to), the model file, and the files
 * its keys name (a tokenizer given by path, with the tokenizer_config.json beside it). The model
 * file is the user's: its keys may name anything; the checkpoint's contents may not lead out.
 *
 * A path the model file names is allowed as written and where it lands (a realpath or lstat looks
 * at the name itself, not following its last part: `/proc/self` named as the checkpoint is looked
 * at as /proc/self and read as /proc/PID), and so is the folder holding it (looked at to find it,
 * not what else it holds). What lies under the named checkpoint folder is judged where it lands,
 * so a link in it that leads out is still outside.
 */
export function caseZones(modelFile: string, checkpointKey: unknown, tokenizerKey: unknown, saeKeys: readonly string[] = []): Zone[] {
  const base = path.dirname(path.resolve(modelFile));
  // (the name itself, both as a link and as what it leads to)
  const named = (p: string): Zone[] => [{ path: landing(p, true), folder: false }, { path: landing(p, false), folder: false }];
  const zones: Zone[] = [...named(modelFile), ...named(base)];
  let lexical: string | null = null;
  if (typeof checkpointKey === 'string') {
    lexical = path.resolve(base, checkpointKey);
    zones.push(...named(path.dirname(lexical)), ...named(lexical));
    const folder = landing(lexical);
    zones.push({ path: folder, folder: true });
    if (path.basename(path.dirname(folder)) === 'snapshots') zones.push({ path: path.join(path.dirname(path.dirname(folder)), 'blobs'), folder: true });
  }
  // (an SAE's folder, as the checkpoint's: the name itself where the user's file points, what lies in it where it lands)
  for (const key of saeKeys) {
    const lex = path.resolve(base, key);
    zones.push(...named(path.dirname(lex)), ...named(lex), { path: landing(lex), folder: true });
  }
  // (a tokenizer the key names inside the checkpoint folder is the folder's: its links may not lead out)
  if (typeof tokenizerKey === 'string') {
    const t = path.resolve(base, tokenizerKey);
    zones.push(...named(path.dirname(t)));
    if (!lexical || !(t + path.sep).startsWith(lexical + path.sep)) zones.push(...named(t), ...named(path.join(path.dirname(t), 'tokenizer_config.json')));
  }
  return zones;
}

// The panel's line while the worker reads a checkpoint, with how far a large read has got (the
// worker tells it: workerReadNotice; the web worker host streams a file through the extension
// host, which knows too: src/compute/hostFiles.ts).
import type { CheckpointRead } from '../protocol/worker';

/** A large read as the host tells it: `done` null where the file system tells no progress. */
export interface ReadShown {
  readonly path: string;
  readonly done: number | null;
  readonly total: number;
}

/** The notice: the checkpoint `what` (as the model file names it), and the read under way in it. */
export function loadingNotice(what: string, read: ReadShown | null): string {
  const name = read ? read.path.slice(read.path.lastIndexOf('/') + 1) : '';
  const mb = read ? `${Math.round(read.total / 1e6)} MB` : '';
  const how = !read ? '' : read.done === null
    ? `: ${name} (${mb}; this file system tells no progress)`
    : `: ${name}, ${Math.floor((100 * read.done) / read.total)} % of ${mb}`;
  return `Reading the checkpoint ${what}${how} (in the background; the numbers come when it is in)…`;
}

/**
 * The notice while the compute worker reads the checkpoint's weights (src/checkpoint/readProgress.ts),
 * null when the plain loading notice says it (read: the numbers come next; failed: the `checkpoint`
 * key says why). A cancelled read stays said until the file is read again.
 */
export function workerReadNotice(what: string, r: Pick<CheckpointRead, 'done' | 'total' | 'state'>): string | null {
  const of = `${Math.floor((100 * r.done) / Math.max(1, r.total))} % of ${sizeText(r.total)}`;
  if (r.state === 'reading') return `Reading the checkpoint ${what}: ${of} (in the background; Cancel in its notification stops it)…`;
  if (r.state === 'cancelled') return `Reading the checkpoint ${what} was cancelled at ${of}. Edit the model file, or run "FFN Lens: Read Cancelled Checkpoints Again", to read it.`;
  return null;
}

function sizeText(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
}

/** Whether `path` lies in the checkpoint folder `what` names, relative to the model file at `docPath` (paths with '/'). */
export function readIsFor(path: string, what: string, docPath: string): boolean {
  if (!what) return false;
  const folder = normalize(what.startsWith('/') ? what : `${docPath.slice(0, docPath.lastIndexOf('/') + 1)}${what}`);
  return normalize(path).startsWith(`${folder.replace(/\/$/, '')}/`);
}

// '.' and '..' segments and repeated slashes resolved: /a/./b/../c → /a/c
function normalize(path: string): string {
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '.' || (seg === '' && out.length > 0)) continue;
    if (seg === '..' && out.length > 1) out.pop();
    else if (seg !== '..') out.push(seg);
  }
  return out.join('/');
}

// Paths taken apart as text, in either style ('/' or '\', a drive letter or not): whether one lies
// under another, and Hugging Face's cache layout. No file is touched here (inside.ts asks the files
// where links lead); no Node built-ins (the web build has none).

/** An absolute path: '/…', '\…' or a drive 'C:\…'. */
export const isAbsolutePath = (p: string): boolean => /^([A-Za-z]:[\\/]|[\\/])/.test(p);

/**
 * Whether `p`, written in a file at `base`, is absolute where that file lies: beside a POSIX path
 * only '/…' is ("C:\\sae" there is a name in the file's folder, not a drive); else isAbsolutePath.
 */
export const isAbsoluteBeside = (p: string, base: string): boolean => (base.startsWith('/') ? p.startsWith('/') : isAbsolutePath(p));

/** A path's root ('/', 'c:' for a drive, '' for a relative path) and its parts, '.' dropped and '..' taken back. */
interface Parts {
  readonly root: string;
  readonly parts: readonly string[];
  /** A relative path whose '..' climbs above where it starts. */
  readonly climbs: boolean;
}

function partsOf(p: string): Parts {
  const drive = /^([A-Za-z]):[\\/]/.exec(p);
  const root = drive ? `${drive[1].toLowerCase()}:` : /^[\\/]/.test(p) ? '/' : '';
  const parts: string[] = [];
  let climbs = false;
  for (const part of p.slice(drive ? 2 : 0).split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.length > 0) parts.pop();
    else if (root === '') climbs = true; // (above '/' is '/')
  }
  return { root, parts, climbs };
}

/** A name inside a folder as written, checked: its parts, or why it cannot be one. */
export function nameParts(name: string): { readonly parts: readonly string[] } | { readonly bad: 'absolute' | 'climbs' | 'empty' } {
  if (isAbsolutePath(name) || /^[A-Za-z]:/.test(name)) return { bad: 'absolute' };
  const p = partsOf(name);
  if (p.climbs) return { bad: 'climbs' };
  return p.parts.length === 0 ? { bad: 'empty' } : { parts: p.parts };
}

/** The parts of `path` below `folder` ([] for the folder itself), or null when it is not under it. */
export function partsBelow(folder: string, path: string): readonly string[] | null {
  const f = partsOf(folder);
  const p = partsOf(path);
  if (f.root !== p.root || f.climbs || p.climbs || p.parts.length < f.parts.length) return null;
  for (let i = 0; i < f.parts.length; i++) if (f.parts[i] !== p.parts[i]) return null;
  return p.parts.slice(f.parts.length);
}

/**
 * Where a Hugging Face cache snapshot's files really are: `…/models--org--name/snapshots/<rev>`
 * (or a folder below it) → `…/models--org--name/blobs`, null for any other folder. The cache's
 * snapshot holds symbolic links into its own repository's blobs/ (`../../blobs/<hash>`).
 */
export function hfCacheBlobs(snapshot: string): string | null {
  const p = partsOf(snapshot);
  for (let i = p.parts.length - 2; i >= 1; i--) {
    if (p.parts[i] !== 'snapshots' || !/^(models|datasets|spaces)--./.test(p.parts[i - 1])) continue;
    const sep = snapshot.includes('/') || !snapshot.includes('\\') ? '/' : '\\';
    const root = p.root === '/' ? sep : p.root === '' ? '' : `${snapshot.slice(0, 1)}:${sep}`;
    return `${root}${[...p.parts.slice(0, i), 'blobs'].join(sep)}`;
  }
  return null;
}

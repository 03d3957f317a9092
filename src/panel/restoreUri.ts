// Where a restored panel's model file is now. The panel saves its file's URI as the host it ran in
// named it, and a reload may bring it up in the other host: code-server's Node extension host names
// a workspace file file:///w/m.ffn.json, its web worker host vscode-remote://127.0.0.1:8080/w/m.ffn.json
// (and a server started again on another port changes that authority). The same path under each
// workspace folder's scheme and authority is the same file.

export interface UriParts {
  readonly scheme: string;
  readonly authority: string;
  readonly path: string;
}

/** The URIs to try, in order: as saved, then its path in the workspace folders that hold it, then in the others. */
export function restoreCandidates(saved: UriParts, folders: readonly UriParts[]): UriParts[] {
  const under = (f: UriParts): boolean => saved.path === f.path || saved.path.startsWith(f.path.endsWith('/') ? f.path : `${f.path}/`);
  const out: UriParts[] = [saved];
  for (const f of [...folders.filter(under), ...folders.filter((f) => !under(f))]) {
    const c = { scheme: f.scheme, authority: f.authority, path: saved.path };
    if (!out.some((o) => o.scheme === c.scheme && o.authority === c.authority && o.path === c.path)) out.push(c);
  }
  return out;
}

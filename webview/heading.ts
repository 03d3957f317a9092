// The name the panel's heading shows before a model summary names the model: the file's, from the
// document's URI, so a panel that follows to another file never goes on naming the one before.

/** The last segment of a URI's path, decoded ("untitled:Untitled-1" gives "Untitled-1"). */
export function fileNameOfUri(uri: string): string {
  const path = uri.replace(/[?#].*$/, '').replace(/^[a-z][\w+.-]*:(\/\/[^/]*)?/i, '');
  const last = path.split('/').filter(Boolean).pop() ?? path;
  try {
    return decodeURIComponent(last) || uri;
  } catch {
    return last || uri; // (a malformed escape: as it is)
  }
}

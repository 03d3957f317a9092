// The panel's HTML: a strict Content Security Policy (nothing but our own files; scripts only
// with this page's nonce; no inline styles).
import * as vscode from 'vscode';

// 16 random bytes as base64 (Web Crypto: in Node and in the web worker host alike)
function nonce16(): string {
  const b = new Uint8Array(16);
  (globalThis as unknown as { crypto: { getRandomValues(a: Uint8Array): Uint8Array } }).crypto.getRandomValues(b);
  return btoa(String.fromCharCode(...b));
}

export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = nonce16();
  const asset = (...p: string[]): vscode.Uri => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p));
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${asset('dist', 'webview.css')}">
  <title>FFN Lens</title>
</head>
<body>
  <div id="app"></div>
  <script nonce="${nonce}" src="${asset('dist', 'webview.js')}"></script>
</body>
</html>`;
}

// The user settings of `npm run demo`'s VS Code. Auto save is off: in the browser VS Code saves as
// you type by default, and every keystroke in the d = 512 sample rewrote 37 MB (and a file over
// 50 MB would be read again, whole, by the panel); the editor keeps unsaved edits across reloads.
// `web`: the extension runs in the web worker extension host (vscode.dev's), in the browser, as
// the e2e suite's test/e2e-web/settings.json forces it; else in the Node extension host.
export function demoSettings({ web = false } = {}) {
  return {
    'files.autoSave': 'off',
    'workbench.startupEditor': 'none',
    ...(web ? { 'remote.extensionKind': { 'ffn-lens.ffn-lens': ['web'] } } : {}),
  };
}

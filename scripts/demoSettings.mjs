// The user settings of `npm run demo`'s VS Code. Auto save is off: in the browser VS Code saves as
// you type by default, and every keystroke in the d = 512 sample rewrote 37 MB (and a file over
// 50 MB would be read again, whole, by the panel); the editor keeps unsaved edits across reloads.
export function demoSettings() {
  return {
    'files.autoSave': 'off',
    'workbench.startupEditor': 'none',
  };
}

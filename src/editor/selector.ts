import type * as vscode from 'vscode';

/** Model files are JSON or JSON with comments; providers check that the document is tracked. */
export const MODEL_SELECTOR: vscode.DocumentSelector = [{ language: 'json' }, { language: 'jsonc' }];

import type * as vscode from 'vscode';

/**
 * Model files are their own language (ffn-json: JSON with comments and trailing commas); a plain
 * .json recognised as a model file is switched to it (modelDocuments.ts), and until then is json or
 * jsonc. Providers check that the document is tracked.
 */
export const MODEL_LANGUAGE = 'ffn-json';
export const MODEL_SELECTOR: vscode.DocumentSelector = [{ language: MODEL_LANGUAGE }, { language: 'json' }, { language: 'jsonc' }];

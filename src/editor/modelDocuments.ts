// Which open documents are model files, kept in step with the compute worker: the whole text
// when a document opens, then only the deltas of each change, with the document version.
//
// A model file is a *.ffn.json(c), or a JSON document whose top level has "version": 1 and one of
// "ffn", "attention", "layers": its text is sniffed here (cheaply, a burst of typing once), the
// worker confirms from the parse, or says `notModel` and it is let go. Once a document is
// confirmed it stays tracked until it closes, so a half-typed edit never makes its diagnostics
// or its panel vanish.
//
// Model files are their own language, ffn-json (JSON with comments): a *.ffn.json is one by its
// name; a plain .json (or .jsonc) document recognised as a model is switched to it once, so VS
// Code's JSON service neither reports its comments as errors nor lists our syntax errors a second
// time, nor parses a 37 MB model on every keystroke. It is never switched back.
import * as vscode from 'vscode';
import type { ComputeClient } from '../compute/computeClient';
import type { TextChange } from '../protocol/worker';
import { isModelFileName, looksLikeModelText } from '../model/read';
import { timed } from '../host/busy';
import { Disposable } from '../host/dispose';
import { MODEL_LANGUAGE } from './selector';

const JSON_LANGUAGES = new Set(['json', 'jsonc', MODEL_LANGUAGE]);
/** Above this, a saved document's text is read from disk by the worker rather than copied over. */
const READ_FROM_DISK = 1024 * 1024;
/** Content sniffing stops here: a bigger non-*.ffn.json file is not scanned on every keystroke. */
const SNIFF_LIMIT = 8 * 1024 * 1024;
/** An untracked JSON document is sniffed again this long after its last change, not per keystroke. */
const SNIFF_DELAY_MS = 400;

export function looksLikeModelDocument(doc: vscode.TextDocument): boolean {
  if (isModelFileName(doc.fileName)) return true;
  if (!JSON_LANGUAGES.has(doc.languageId)) return false;
  if (documentLength(doc) > SNIFF_LIMIT) return false; // before getText(), which copies the whole text
  return looksLikeModelText(doc.getText());
}

/** The text length without building the text (getText() is O(n), offsetAt is not). */
export function documentLength(doc: vscode.TextDocument): number {
  return doc.offsetAt(doc.lineAt(doc.lineCount - 1).range.end);
}

export class ModelDocuments extends Disposable {
  private readonly tracked = new Map<string, vscode.TextDocument>();
  /** Tracked for their text alone, not yet confirmed by the worker. */
  private readonly sniffed = new Set<string>();
  private readonly sniffTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Documents being switched to the model language. */
  private readonly switching = new Set<string>();

  private readonly _onDidChange = this._register(new vscode.EventEmitter<vscode.TextDocument>());
  /** A tracked document was opened, changed or tracked for the first time. */
  readonly onDidChange = this._onDidChange.event;
  private readonly _onDidClose = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidClose = this._onDidClose.event;

  constructor(private readonly client: ComputeClient) {
    super();
    this._register(vscode.workspace.onDidOpenTextDocument((d) => timed('document opened', () => this.consider(d))));
    this._register(vscode.workspace.onDidChangeTextDocument((e) => timed('document changed', () => this.changed(e))));
    this._register(vscode.workspace.onDidCloseTextDocument((d) => timed('document closed', () => this.close(d))));
    this._register(client.onRestart(() => {
      for (const [key, d] of this.tracked) this.open(d, false, this.sniffed.has(key));
    }));
    this._register(client.onMessage((m) => {
      if (m.type === 'resync') {
        const d = this.tracked.get(m.doc);
        if (d) this.open(d, true, this.sniffed.has(m.doc));
      } else if (m.type === 'notModel') {
        const d = this.tracked.get(m.doc);
        if (d && this.sniffed.has(m.doc) && d.version === m.version) this.close(d);
      }
    }));
    this._register({ dispose: () => this.sniffTimers.forEach((t) => clearTimeout(t)) });
    for (const d of vscode.workspace.textDocuments) this.consider(d);
  }

  isTracked(uri: vscode.Uri): boolean {
    return this.tracked.has(uri.toString());
  }

  get(uri: vscode.Uri | string): vscode.TextDocument | undefined {
    return this.tracked.get(typeof uri === 'string' ? uri : uri.toString());
  }

  all(): vscode.TextDocument[] {
    return [...this.tracked.values()];
  }

  /** Tracks a document even if it does not look like a model (the user asked to visualize it). */
  track(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    if (!this.tracked.has(key)) this.open(doc);
    else if (this.sniffed.has(key)) this.open(doc); // again, confirmed: the worker no longer doubts it
  }

  private consider(doc: vscode.TextDocument): void {
    if (this.tracked.has(doc.uri.toString()) || doc.uri.scheme === 'git' || doc.uri.scheme === 'output') return;
    if (isModelFileName(doc.fileName)) this.open(doc);
    else if (looksLikeModelDocument(doc)) {
      if (doc.languageId !== MODEL_LANGUAGE && !this.switching.has(doc.uri.toString())) {
        // reopened by VS Code as an ffn-json document, which is considered (and tracked) then
        this.switching.add(doc.uri.toString());
        void vscode.languages.setTextDocumentLanguage(doc, MODEL_LANGUAGE).then(
          () => this.switching.delete(doc.uri.toString()),
          () => { this.switching.delete(doc.uri.toString()); if (!doc.isClosed) this.open(doc, false, true); },
        );
        return;
      }
      this.open(doc, false, true);
    }
  }

  private open(doc: vscode.TextDocument, fromEditor = false, sniffed = false): void {
    const key = doc.uri.toString();
    this.tracked.set(key, doc);
    if (sniffed) this.sniffed.add(key);
    else this.sniffed.delete(key);
    if (!fromEditor && doc.uri.scheme === 'file' && !doc.isDirty && documentLength(doc) > READ_FROM_DISK) {
      // A large saved file: the worker reads it from disk itself, sparing this thread a copy of
      // the whole text. Should it differ from the editor's (another encoding), the first edit's
      // length check finds out and the text is sent after all (resync).
      this.client.send({ type: 'openFile', doc: key, path: doc.uri.fsPath, version: doc.version, asDocument: true, sniffed });
    } else {
      this.client.send({ type: 'open', doc: key, fileName: doc.fileName, version: doc.version, text: doc.getText(), sniffed });
    }
    this._onDidChange.fire(doc);
  }

  /** Sniffs an untracked document once its typing pauses. */
  private considerLater(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    clearTimeout(this.sniffTimers.get(key));
    this.sniffTimers.set(key, setTimeout(() => {
      this.sniffTimers.delete(key);
      if (!doc.isClosed) timed('document sniffed', () => this.consider(doc));
    }, SNIFF_DELAY_MS));
  }

  private changed(e: vscode.TextDocumentChangeEvent): void {
    const doc = e.document;
    const key = doc.uri.toString();
    if (!this.tracked.has(key)) {
      if (e.contentChanges.length && JSON_LANGUAGES.has(doc.languageId)) this.considerLater(doc);
      return;
    }
    if (e.contentChanges.length === 0) return; // dirty-state change only
    const changes: TextChange[] = e.contentChanges.map((c) => ({ offset: c.rangeOffset, length: c.rangeLength, text: c.text }));
    this.client.send({ type: 'change', doc: key, version: doc.version, changes, length: documentLength(doc), at: Date.now() });
    this._onDidChange.fire(doc);
  }

  private close(doc: vscode.TextDocument): void {
    const key = doc.uri.toString();
    clearTimeout(this.sniffTimers.get(key));
    this.sniffTimers.delete(key);
    this.sniffed.delete(key);
    if (!this.tracked.delete(key)) return;
    this.client.send({ type: 'close', doc: key });
    this._onDidClose.fire(doc.uri);
  }
}

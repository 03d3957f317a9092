// A Disposable base in the style of vscode-extension-samples: everything an object creates is
// registered with _register and disposed with it. No `vscode` import, so the worker and tests
// can use it too.

export interface IDisposable {
  dispose(): void;
}

export abstract class Disposable implements IDisposable {
  private readonly _disposables: IDisposable[] = [];
  private _isDisposed = false;

  protected get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (this._isDisposed) return;
    this._isDisposed = true;
    // Last in, first out: later objects may depend on earlier ones.
    while (this._disposables.length) {
      try {
        this._disposables.pop()!.dispose();
      } catch {
        // one failing dispose must not keep the others alive
      }
    }
  }

  protected _register<T extends IDisposable>(d: T): T {
    if (this._isDisposed) d.dispose();
    else this._disposables.push(d);
    return d;
  }
}

// The one error the checkpoint loader throws: a plain one-line message that says what is wrong and
// what was expected (the model file shows it at its `checkpoint` key, never a stack trace), with
// the file and the tensor it is about when there is one.

export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  readonly file?: string;
  readonly tensor?: string;

  constructor(message: string, where: { readonly file?: string; readonly tensor?: string } = {}) {
    // one line, whatever a file name or a JSON value brought in
    super(message.replace(/\s*[\r\n]+\s*/g, ' '));
    if (where.file !== undefined) this.file = where.file;
    if (where.tensor !== undefined) this.tensor = where.tensor;
  }
}

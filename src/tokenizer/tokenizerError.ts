/** What is wrong with a tokenizer (or a call to it), in one plain line. */
export class TokenizerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenizerError';
  }
}

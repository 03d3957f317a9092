// The tree the JSONC parser gives (jsonc.ts): one node per value, except an array of plain numbers,
// whose values lie in the parse's arena (a NumbersNode).

export interface NodeBase {
  readonly start: number;   // offset of the first character
  end: number;              // offset after the last character
}
export interface ObjectNode extends NodeBase { readonly kind: 'object'; readonly props: PropertyNode[] }
export interface ArrayNode extends NodeBase { readonly kind: 'array'; readonly items: JsonNode[] }
/** An array of numbers only: values are arena[offset … offset+length-1]. */
export interface NumbersNode extends NodeBase { readonly kind: 'numbers'; readonly offset: number; readonly length: number }
export interface NumberNode extends NodeBase { readonly kind: 'number'; readonly value: number }
export interface StringNode extends NodeBase { readonly kind: 'string'; readonly value: string }
export interface BooleanNode extends NodeBase { readonly kind: 'boolean'; readonly value: boolean }
export interface NullNode extends NodeBase { readonly kind: 'null' }
/** NaN, Infinity, -Infinity: not JSON, but people write them; reported where they stand. */
export interface NonFiniteNode extends NodeBase { readonly kind: 'nonfinite'; readonly text: string }
/** Something that is not a value at all (a stray word, a missing value). */
export interface InvalidNode extends NodeBase { readonly kind: 'invalid'; readonly text: string }

export type JsonNode =
  | ObjectNode | ArrayNode | NumbersNode | NumberNode | StringNode | BooleanNode | NullNode
  | NonFiniteNode | InvalidNode;

export interface PropertyNode {
  readonly key: string;
  readonly keyStart: number;
  readonly keyEnd: number;
  value: JsonNode | null;
  readonly start: number;
  end: number;
}

export interface SyntaxProblem {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

export interface ParsedJson {
  readonly root: JsonNode | null;
  /** Every number of every NumbersNode, in text order. */
  readonly arena: Float32Array;
  readonly errors: SyntaxProblem[];
  /** Number arrays in text order (the rows of every matrix and every vector). */
  readonly numberArrays: NumbersNode[];
}

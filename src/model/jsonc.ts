// A JSON-with-comments parser made for weight files.
//
// - Comments (// and /* */) and trailing commas are allowed, as in VS Code's settings files.
// - An array of plain numbers is scanned in one flat loop straight into a shared Float32Array
//   (the arena), remembering only where the array's text starts and ends: no JSON.parse, no
//   node per number. The rows of a matrix land one after another, so a matrix is a subarray.
// - Anything else (or a number array holding a string, NaN, a syntax slip) is parsed the slow
//   way, into one node per element, so every error has its exact position.
// - It never throws: every problem is collected with its offsets, and parsing goes on.
//
// The parts: jsonSource.ts (what is read: text, chunks or bytes), jsonScanner.ts (cursor, trivia,
// strings, errors), jsonNumber.ts (one number, rounded as JSON.parse + Math.fround),
// jsonNumberArrays.ts (the fast path), jsonTree.ts (the tree and its recovery), jsonCloseHints.ts
// (where a lost } belongs), numberRows.ts (one array of numbers read again after the parse).

import type { ParsedJson } from './jsonNodes';
import type { Source } from './jsonSource';
import { TreeParser } from './jsonTree';

export type {
  ArrayNode, BooleanNode, InvalidNode, JsonNode, NodeBase, NonFiniteNode, NullNode, NumberNode, NumbersNode, ObjectNode, ParsedJson,
  PropertyNode, StringNode, SyntaxProblem,
} from './jsonNodes';
export { FLOAT32_OVERFLOW } from './jsonNumber';
export { asciiBytes, sourceBytes, sourceSlice, type Source } from './jsonSource';
export { elementRanges, numbersOf, scanNumberRow } from './numberRows';

/** Parses a text, or its bytes (a file as read from disk, UTF-8): then offsets are byte offsets. */
export function parseJsonc(text: Source): ParsedJson {
  return new TreeParser(text).parse();
}

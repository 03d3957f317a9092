// Small modules (issue 28): no source file over 400 lines, no function over 80. Every
// src/**/*.ts and webview/**/*.ts but tests is parsed with the TypeScript compiler API; a function
// is any function declaration, function expression, arrow function, method, constructor or
// accessor, measured from its first line to its last (its comments above it not counted). A
// function's lines include those of the functions inside it: a long one is not made short by
// nesting its parts.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { REPO } from '../helpers/fixtures';
import { sourceFiles } from '../helpers/sourceTree';

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/**
 * Functions allowed over the limit, as `file:name`. Only the builders of generated WebAssembly:
 * each writes one wasm function's body instruction by instruction, a flat list of opcodes whose
 * order is the algorithm (splitting it would scatter one straight-line body over helpers that
 * mean nothing apart). Nothing else may be added here.
 */
const GENERATED_WASM_BUILDERS: readonly string[] = [
  'src/core/wasm/matmulProducts.ts:matmulFunction', // C += A·B over B's panels, the SIMD kernel
  'src/core/wasm/matmulProducts.ts:matmulKnFunction', // the same product with B read k-major
  'src/core/wasm/expModule.ts:softmaxFunction', // the vector softmax, bit-identical to its JS loop
  'src/core/wasm/expModule.ts:normRowsFunction', // LayerNorm / RMSNorm over rows, likewise
];

/**
 * TEMPORARY: files and functions over the limits in files other helpers are editing while this
 * test lands (issue 29's wiring of src/core/plan.ts, src/core/heads.ts, src/core/embedding.ts,
 * src/core/lens.ts, src/checkpoint/load.ts, src/lenses/, webview/). They are to be split there;
 * the lead empties this list once those branches are merged. Nothing may be added to it. Entries
 * are `file` (a file over 400 lines) or `file:name` (a function over 80).
 */
const PENDING: readonly string[] = [
];

/** A function's name as a reader finds it: its own, or the variable, property or class member it is assigned to. */
function functionName(node: ts.FunctionLikeDeclaration): string {
  const named = (n: ts.Node | undefined): string | undefined => {
    if (!n) return undefined;
    if (ts.isIdentifier(n) || ts.isPrivateIdentifier(n) || ts.isStringLiteral(n) || ts.isNumericLiteral(n)) return n.text;
    if (ts.isComputedPropertyName(n)) return `[${n.expression.getText()}]`;
    return undefined;
  };
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const own = named(node.name);
  if (own) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    const p = named(parent.name);
    if (p) return p;
  }
  if (ts.isBinaryExpression(parent) && parent.right === node) return parent.left.getText();
  const { line } = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart());
  return `(anonymous at line ${line + 1})`;
}

interface Over { readonly key: string; readonly lines: number; readonly where: string }

/** What in one source file is over the limits: the file itself, and each function. */
function overLimits(file: string, text = readFileSync(join(REPO, file), 'utf8')): Over[] {
  const out: Over[] = [];
  const lineCount = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  if (lineCount > MAX_FILE_LINES) out.push({ key: file, lines: lineCount, where: `${file}: ${lineCount} lines (limit ${MAX_FILE_LINES})` });
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) {
        const key = `${file}:${functionName(fn)}`;
        out.push({ key, lines, where: `${file}:${first + 1}: ${functionName(fn)}, ${lines} lines (limit ${MAX_FUNCTION_LINES})` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('small modules: no file over 400 lines, no function over 80', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('webview')];
  const found = files.flatMap((f) => overLimits(f));
  const allowed = new Set([...GENERATED_WASM_BUILDERS, ...PENDING]);

  it('reads the source tree (the scan sees the files it guards)', () => {
    assert.ok(files.includes('src/core/wasm/matmulProducts.ts') && files.includes('webview/app.ts'));
    assert.ok(!files.some((f) => f.endsWith('.test.ts')));
    assert.ok(files.length > 100, `${files.length} files`);
  });

  it('no source file or function is over the limit (but the generated WebAssembly builders)', () => {
    const over = found.filter((o) => !allowed.has(o.key)).map((o) => o.where);
    assert.deepEqual(over, [], `\n${over.join('\n')}`);
  });

  it('the allow-list and PENDING name only what is still over (empty PENDING as files are split)', () => {
    const stale = [...GENERATED_WASM_BUILDERS, ...PENDING].filter((k) => !found.some((o) => o.key === k));
    assert.deepEqual(stale, []);
  });

  it('the measure catches what it is meant to', () => {
    const body = (n: number): string => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
    const long = `export function big(): number {\n  let x = 0;\n${body(77)}\n  return x;\n}\n`; // 81 lines
    const fine = `export const ok = (): number => {\n  let x = 0;\n${body(76)}\n  return x;\n};\n`; // 80 lines
    const method = `class K {\n  run(): number {\n    let x = 0;\n${body(80)}\n    return x;\n  }\n}\n`;
    assert.deepEqual(overLimits('a.ts', long).map((o) => [o.key, o.lines]), [['a.ts:big', 81]]);
    assert.deepEqual(overLimits('b.ts', fine), []);
    assert.deepEqual(overLimits('c.ts', method).map((o) => o.key), ['c.ts:run']);
    assert.deepEqual(overLimits('d.ts', 'const a = 1;\n'.repeat(401)).map((o) => o.key), ['d.ts']);
    assert.deepEqual(overLimits('e.ts', 'const a = 1;\n'.repeat(400)), []);
  });
});

// Test helpers of the adapters (imported by tests only): config.json parsed, its error's message,
// a tensor list as one line per tensor.
import * as assert from 'node:assert/strict';
import { parseConfig } from '../../src/checkpoint/config';
import { CheckpointError } from '../../src/checkpoint/errors';
import type { ExpectedTensor } from '../../src/checkpoint/arch/tensors';
import type { ArchConfig } from '../../src/checkpoint/arch/types';

export const parse = (c: object): ArchConfig => parseConfig(JSON.stringify(c));

/** The one-line error config.json `c` gives (an object, or the file's text as it stands). */
export function configError(c: object | string): string {
  try {
    parseConfig(typeof c === 'string' ? c : JSON.stringify(c));
  } catch (e) {
    assert.ok(e instanceof CheckpointError, String(e));
    assert.equal(e.file, 'config.json');
    assert.ok(!e.message.includes('\n'));
    return e.message;
  }
  assert.fail('no error');
}

/** `name [shape] → id layout`, as tensorNames.test.ts writes them. */
export function tensorRow(t: ExpectedTensor): string {
  const r = t.role;
  const to = r.kind === 'matrix' ? `${r.id} ${r.layout}` : r.kind === 'vector' ? r.id : r.kind === 'fused' ? `${r.fused}${r.bias ? ' bias' : ''} ${r.layer}` : `${r.kind} ${r.layer}`;
  return `${t.name} [${t.shape.join(', ')}] → ${to}`;
}

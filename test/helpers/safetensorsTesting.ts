// Test helpers of the safetensors reader (imported by tests only): a file in memory, and the one
// clear error its header gives.
import * as assert from 'node:assert/strict';
import { CheckpointError, MESSAGE_MAX } from '../../src/checkpoint/errors';
import type { CheckpointFiles } from '../../src/checkpoint/files';
import { memoryFiles } from '../../src/checkpoint/memoryFiles';
import { readHeader } from '../../src/checkpoint/safetensors';

/** One file in memory at `path`. */
export const one = (path: string, bytes: Uint8Array): CheckpointFiles => memoryFiles(new Map([[path, bytes]]));

/** The error reading `bytes` as model.safetensors gives: one bounded line, naming the file. */
export async function headerError(bytes: Uint8Array): Promise<CheckpointError> {
  try {
    await readHeader(one('/m/model.safetensors', bytes), '/m/model.safetensors', 'model.safetensors');
  } catch (e) {
    assert.ok(e instanceof CheckpointError, String(e));
    assert.ok(!/[\u0000-\u001f\u007f]/.test(e.message), 'one line, no control characters');
    assert.ok(e.message.length <= MESSAGE_MAX, `bounded: ${e.message.length} characters`);
    assert.ok(!e.message.includes('undefined'), e.message);
    assert.equal(e.file, 'model.safetensors');
    return e;
  }
  assert.fail('no error');
}

// The sinusoidal positional encoding at hand-checked positions.
import { positionalForward } from './positional';
import { close } from '../../test/helpers/handChecked';

describe('positional encoding', () => {
  it('position 0 is [0, 1, 0, 1, …]; position 1 is [sin 1, cos 1, sin 0.01, cos 0.01] for d = 4', () => {
    const out = new Float32Array(8);
    positionalForward(out, new Float32Array(8), 2, 4);
    close(out, [0, 1, 0, 1, Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)]);
  });
});

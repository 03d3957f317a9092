// The residual sum, at hand-checked values.
import { residualForward } from './residual';
import { close, f32 } from '../../test/helpers/handChecked';

describe('residual', () => {
  it('residual adds', () => {
    const r = new Float32Array(2);
    residualForward(r, f32([1, 2]), f32([0.5, -2]), 2);
    close(r, [1.5, 0]);
  });
});

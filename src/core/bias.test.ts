// A bias broadcast over rows, at hand-checked values.
import { biasAdd } from './bias';
import { close, f32 } from '../../test/helpers/handChecked';

describe('bias', () => {
  it('biasAdd broadcasts over rows', () => {
    const out = f32([1, 2, 3, 4]);
    biasAdd(out, f32([10, 20]), 2, 2);
    close(out, [11, 22, 13, 24]);
  });
});

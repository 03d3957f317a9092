// Which matmul kernel to use: the fastest one this runtime supports.
import { tsKernel, type MatmulKernel } from './kernel';

export function defaultKernel(): MatmulKernel {
  return tsKernel;
}

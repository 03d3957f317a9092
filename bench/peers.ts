// The peers the matmul kernels are measured against in the same run: TensorFlow.js with its CPU
// backend (plain JS) and its WebAssembly backend (XNNPACK, SIMD; threads do not work in Node).
// Each gets the weights once, in its faster layout (tfjs-wasm is ~10× slower with transposeB),
// and each call includes making the input tensor and reading the result back, as ours copies in/out.
import { join } from 'node:path';
import type { BenchKernel } from './matmulKernels';

type Tf = typeof import('@tensorflow/tfjs-core');

let tfPromise: Promise<Tf> | null = null;

async function loadTf(): Promise<Tf> {
  tfPromise ??= (async () => {
    const tf = await import('@tensorflow/tfjs-core');
    await import('@tensorflow/tfjs-backend-cpu');
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    // the .wasm files ship in the package: no download
    wasm.setWasmPaths(join(require.resolve('@tensorflow/tfjs-backend-wasm/package.json'), '..', 'dist') + '/');
    // tfjs greets Node users on stdout; the benchmark's output is a table
    const log = console.log;
    console.log = () => undefined;
    try {
      await tf.setBackend('cpu');
    } finally {
      console.log = log;
    }
    return tf;
  })();
  return tfPromise;
}

export async function tfjsKernel(backend: 'cpu' | 'wasm'): Promise<BenchKernel | null> {
  try {
    const tf = await loadTf();
    if (!(await tf.setBackend(backend))) return null;
    await tf.ready();
    return {
      name: `tfjs-${backend}`,
      prepare: (b, K, N, bLayout) => {
        void tf.setBackend(backend);
        // B as (K,N) whatever the file layout: the layout tfjs is fastest with
        let kn = b;
        if (bLayout === 'nk') {
          kn = new Float32Array(K * N);
          for (let j = 0; j < N; j++) for (let k = 0; k < K; k++) kn[k * N + j] = b[j * K + k];
        }
        const w = tf.tensor2d(kn, [K, N]);
        return {
          run: (out, a, M) => {
            // both backends are initialized, so this switch is synchronous (tensors stay put)
            void tf.setBackend(backend);
            const x = tf.tensor2d(a.subarray(0, M * K), [M, K]);
            const y = tf.matMul(x, w);
            out.set(y.dataSync() as Float32Array);
            x.dispose();
            y.dispose();
          },
          dispose: () => w.dispose(),
        };
      },
    };
  } catch {
    return null;
  }
}

/** TensorFlow.js on its WebAssembly backend (the GPT-2 forward peer), or null where it cannot run. */
export async function tfjsWasm(): Promise<Tf | null> {
  try {
    const tf = await loadTf();
    if (!(await tf.setBackend('wasm'))) return null;
    await tf.ready();
    return tf;
  } catch {
    return null;
  }
}

export async function tfjsVersion(): Promise<string> {
  const tf = await loadTf();
  return tf.version_core;
}

export async function tfjsWasmHasSimd(): Promise<boolean> {
  const tf = await loadTf();
  await tf.setBackend('wasm');
  await tf.ready();
  return tf.env().getBool('WASM_HAS_SIMD_SUPPORT') as boolean;
}

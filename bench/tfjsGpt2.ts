// The peer of the GPT-2-small forward (issue 10): the same forward written with TensorFlow.js ops
// on its WebAssembly backend (XNNPACK, SIMD; one thread in Node), from the same params, every stage
// read back into JS as ours are kept. Weights are given once, in the layout tfjs is fastest with
// ([in][out]: tfjs-wasm is about 10× slower with transposeB), outside the timing.
import type { Model } from '../src/core/model';
import { floatData, type Param } from '../src/core/params';

type Tf = typeof import('@tensorflow/tfjs-core');
type Tensor2D = import('@tensorflow/tfjs-core').Tensor2D;

/** A run function (one full forward, every stage read back; returns the number of stages), or null if tfjs-wasm is missing. */
export function tfjsGpt2Forward(tf: Tf, model: Model): { run: () => number; dispose: () => void } {
  const { spec, params } = model;
  const { C, T } = spec;
  const e = spec.embedding;
  if (e.kind !== 'tokens' || e.positional !== 'learned' || spec.normKind !== 'layernorm') throw new Error('a GPT-2 model is expected');
  const V = spec.head!.V;
  const keep: import('@tensorflow/tfjs-core').Tensor[] = [];
  // (K,N) = in_out whatever the param's layout
  const kn = (p: Param, K: number, N: number): Tensor2D => {
    let d = floatData(p);
    if (p.layout !== 'in_out') {
      const src = d;
      d = new Float32Array(K * N);
      for (let n = 0; n < N; n++) for (let k = 0; k < K; k++) d[k * N + n] = src[n * K + k];
    }
    const t = tf.tensor2d(d.subarray(0, K * N), [K, N]);
    keep.push(t);
    return t;
  };
  const vec = (id: string, n: number) => {
    const p = params.get(id);
    const t = tf.tensor1d(p ? floatData(p).subarray(0, n) : new Float32Array(n));
    keep.push(t);
    return t;
  };
  const layers = spec.layers.map((L, i) => {
    const p = `layers.${i}.`;
    const a = L.attention!;
    const F = L.ffn!.F;
    return {
      NH: a.NH, HS: a.HS, F,
      g1: vec(p + 'ln1.gamma', C), b1n: vec(p + 'ln1.beta', C), g2: vec(p + 'ln2.gamma', C), b2n: vec(p + 'ln2.beta', C),
      Wq: kn(params.get(p + 'attn.Wq')!, C, C), Wk: kn(params.get(p + 'attn.Wk')!, C, C), Wv: kn(params.get(p + 'attn.Wv')!, C, C),
      bq: vec(p + 'attn.bq', C), bk: vec(p + 'attn.bk', C), bv: vec(p + 'attn.bv', C),
      Wo: kn(params.get(p + 'attn.Wo')!, C, C), bo: vec(p + 'attn.bo', C),
      W1: kn(params.get(p + 'ffn.W1')!, C, F), b1: vec(p + 'ffn.b1', F), W2: kn(params.get(p + 'ffn.W2')!, F, C), b2: vec(p + 'ffn.b2', C),
    };
  });
  const gf = vec('ln_f.gamma', C);
  const bf = vec('ln_f.beta', C);
  const WU = kn(params.get('head.W')!, C, V);
  const embed = floatData(params.get('embed')!);
  const pos = floatData(params.get('pos')!);
  const x0 = new Float32Array(T * C);
  e.ids.forEach((id, t) => { for (let c = 0; c < C; c++) x0[t * C + c] = embed[id * C + c] + pos[t * C + c]; });
  const mask = tf.tensor2d(Array.from({ length: T * T }, (_, i) => (i % T > Math.floor(i / T) ? -Infinity : 0)), [T, T]);
  keep.push(mask);
  const eps = 1e-5;
  const ln = (x: Tensor2D, g: import('@tensorflow/tfjs-core').Tensor1D, b: import('@tensorflow/tfjs-core').Tensor1D): Tensor2D => {
    const { mean, variance } = tf.moments(x, 1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, eps))), g), b) as Tensor2D;
  };
  const geluTanh = (x: Tensor2D): Tensor2D => {
    const u = tf.mul(tf.add(x, tf.mul(tf.pow(x, 3), 0.044715)), Math.sqrt(2 / Math.PI));
    return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(u), 1)) as Tensor2D;
  };
  return {
    run: () => {
      let n = 0;
      const read = (t: import('@tensorflow/tfjs-core').Tensor): void => {
        t.dataSync();
        n++;
      };
      tf.tidy(() => {
        let x = tf.tensor2d(x0, [T, C]);
        read(x);
        for (const L of layers) {
          const a = ln(x, L.g1, L.b1n);
          read(a);
          const heads = (W: Tensor2D, b: import('@tensorflow/tfjs-core').Tensor1D) => {
            const y = tf.add(tf.matMul(a, W), b);
            const h = tf.transpose(tf.reshape(y, [T, L.NH, L.HS]), [1, 0, 2]);
            read(h);
            return h as import('@tensorflow/tfjs-core').Tensor3D;
          };
          const q = heads(L.Wq, L.bq);
          const k = heads(L.Wk, L.bk);
          const v = heads(L.Wv, L.bv);
          const scores = tf.div(tf.matMul(q, k, false, true), Math.sqrt(L.HS));
          read(scores);
          const weights = tf.softmax(tf.add(scores, mask));
          read(weights);
          const ctx = tf.reshape(tf.transpose(tf.matMul(weights, v), [1, 0, 2]), [T, C]) as Tensor2D;
          read(ctx);
          const o = tf.add(tf.matMul(ctx, L.Wo), L.bo) as Tensor2D;
          read(o);
          x = tf.add(x, o) as Tensor2D;
          read(x);
          const a2 = ln(x, L.g2, L.b2n);
          read(a2);
          const up = tf.add(tf.matMul(a2, L.W1), L.b1) as Tensor2D;
          read(up);
          const act = geluTanh(up);
          read(act);
          const down = tf.add(tf.matMul(act, L.W2), L.b2) as Tensor2D;
          read(down);
          x = tf.add(x, down) as Tensor2D;
          read(x);
        }
        const out = ln(x, gf, bf);
        read(out);
        const logits = tf.matMul(out, WU);
        read(logits);
        read(tf.softmax(logits));
      });
      return n;
    },
    dispose: () => keep.forEach((t) => t.dispose()),
  };
}

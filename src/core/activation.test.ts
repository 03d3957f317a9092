// The activation stage: its columns recomputed one by one (an edit of a few neurons) give the bits
// of the whole stage, for every activation, with and without unit scales, and the whole stage
// equals f applied element by element (SiLU and GELU-tanh take e^ in one vector pass there).
import * as assert from 'node:assert/strict';
import { ACTIVATIONS, activationColumns, activationFn, activationForward, gateActivation, isGated, type Activation } from './activation';
import { gelu } from './gelu';
import { geluTanh } from './geluTanh';
import { relu } from './relu';
import { silu } from './silu';
import { close, f32 } from '../../test/helpers/handChecked';

const T = 5;
const F = 37;
const rand = (n: number, seed: number, spread: number): Float32Array => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898 + seed) * spread);

describe('activationColumns', () => {
  for (const a of [...ACTIVATIONS, 'geglu_tanh'] as Activation[]) {
    for (const withUnits of [false, true]) {
      it(`${a}${withUnits ? ', unit scales' : ''}: the whole stage = f element by element = its columns one by one`, () => {
        const up = rand(T * F, 1, 12);
        up[3] = -200; // e^(−2u) past float32's range: −0, as GELU's
        up[4] = 200;
        const gate = isGated(a) ? rand(T * F, 2, 12) : null;
        const units = withUnits ? Float32Array.from({ length: F }, (_, j) => (j % 5 === 0 ? 0 : 1 + j / 10)) : null;
        const whole = new Float32Array(T * F);
        activationColumns(whole, up, gate, a, units, T, F, null);
        const f = activationFn(a);
        const byElement = new Float32Array(T * F);
        for (let t = 0; t < T; t++) {
          for (let j = 0; j < F; j++) {
            const i = t * F + j;
            const v = gate ? f(gate[i]) * up[i] : f(up[i]);
            byElement[i] = units ? v * units[j] : v;
          }
        }
        const cols = new Float32Array(T * F);
        activationColumns(cols, up, gate, a, units, T, F, Array.from({ length: F }, (_, j) => F - 1 - j));
        for (let i = 0; i < T * F; i++) {
          assert.ok(Object.is(whole[i], byElement[i]), `${a} at ${i}: whole ${whole[i]} vs f ${byElement[i]}`);
          assert.ok(Object.is(whole[i], cols[i]), `${a} at ${i}: whole ${whole[i]} vs column ${cols[i]}`);
        }
      });
    }
  }

  for (const a of ['silu', 'gelu_tanh', 'swiglu', 'geglu_tanh', 'gelu', 'geglu'] as const) {
    it(`${a}, 40,003 values (past one block of the vector form), NaN, ±∞, ±0, huge: the whole stage = f element by element, bit for bit`, () => {
      const n = 40003;
      const up = rand(n, 3, 40);
      const gate = isGated(a) ? rand(n, 4, 40) : null;
      const x = gate ?? up;
      [NaN, Infinity, -Infinity, 0, -0, 3e38, -3e38, 1e-40, -1e-40].forEach((v, i) => (x[100 + i] = v));
      const whole = new Float32Array(n);
      activationColumns(whole, up, gate, a, null, 1, n, null);
      const f = activationFn(a);
      for (let i = 0; i < n; i++) {
        const want = Math.fround(gate ? f(gate[i]) * up[i] : f(up[i]));
        assert.ok(Object.is(whole[i], want), `${a} at ${i} (x = ${x[i]}): ${whole[i]} vs ${want}`);
      }
    });
  }
});

describe('activations', () => {
  it('GELU at 0, ±3, -10 (x·Φ(x))', () => {
    assert.equal(gelu(0), 0);
    assert.ok(Math.abs(gelu(3) - 2.99595030590511) < 1e-14);
    assert.ok(Math.abs(gelu(-3) / -0.004049694094890287 - 1) < 1e-13, `gelu(-3) = ${gelu(-3)}`);
    // far left: tiny but not zero, and negative (erfc form, no cancellation)
    assert.ok(Math.abs(gelu(-10) / -7.619853024160593e-23 - 1) < 1e-12, `gelu(-10) = ${gelu(-10)}`);
  });
  it('GELU tanh approximation, SiLU, ReLU at hand-checked points (e^x in float32: to ~1e-7)', () => {
    assert.ok(Math.abs(geluTanh(1) / 0.8411919906082768 - 1) < 2e-7, `geluTanh(1) = ${geluTanh(1)}`);
    assert.ok(Math.abs(silu(1) / 0.7310585786300049 - 1) < 2e-7, `silu(1) = ${silu(1)}`);
    assert.ok(Object.is(geluTanh(-200), -0));
    assert.equal(silu(0), 0);
    assert.equal(relu(-2), 0);
    assert.equal(relu(2.5), 2.5);
  });
  it('gated: act = f(gate) ⊙ up', () => {
    const out = new Float32Array(3);
    activationForward(out, f32([2, 3, 4]), f32([-1, 0, 1]), 'reglu', 3);
    close(out, [0, 0, 4]);
    activationForward(out, f32([2, 3, 4]), f32([-1, 0, 1]), 'swiglu', 3);
    close(out, [2 * silu(-1), 0, 4 * silu(1)]);
  });
  it('linear leaves values as they are', () => {
    const out = new Float32Array(3);
    activationForward(out, f32([-2, 0, 5]), null, 'linear', 3);
    close(out, [-2, 0, 5]);
  });
});

describe('geglu_tanh (gemma: gelu_pytorch_tanh(gate) · up)', () => {
  it('is gated, applies GELU-tanh to the gate (not the exact GELU of geglu), and is not a model file\'s activation', () => {
    assert.ok(isGated('geglu_tanh'));
    assert.equal(gateActivation('geglu_tanh'), 'gelu_tanh');
    assert.equal(gateActivation('geglu'), 'gelu');
    assert.equal(gateActivation('swiglu'), 'silu');
    assert.equal(gateActivation('relu'), 'relu');
    assert.ok(!ACTIVATIONS.includes('geglu_tanh'));
    const act = new Float32Array(3);
    const gate = new Float32Array([1, -2, 0.5]);
    const up = new Float32Array([2, 3, -4]);
    activationColumns(act, up, gate, 'geglu_tanh', null, 1, 3, null);
    // GELU-tanh(1) = 0.8411920, GELU(1) = 0.8413447
    assert.ok(Math.abs(act[0] - 2 * 0.841192) < 1e-6);
    for (let i = 0; i < 3; i++) assert.ok(Math.abs(act[i] - geluTanh(gate[i]) * up[i]) < 1e-6);
    const exact = new Float32Array(3);
    activationColumns(exact, up, gate, 'geglu', null, 1, 3, null);
    assert.ok(Math.abs(exact[0] - act[0]) > 2e-4);
  });
});

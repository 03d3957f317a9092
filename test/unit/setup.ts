// Loaded by mocha before every suite (.mocharc.json "require"): the process runs as the compute
// worker and the CLI do, with WebAssembly relaxed-simd on, so the kernels under test are theirs.
import { enableWasmRelaxedSimd } from '../../src/worker/nodeWasmFeatures';

enableWasmRelaxedSimd();

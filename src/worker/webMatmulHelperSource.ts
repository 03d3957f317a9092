// The web matmul helper's bundle (webMatmulHelperMain.ts) as text: esbuild.mjs puts it here when it
// bundles the web compute worker, which starts helpers from it (webMatmulHelper.ts). Empty anywhere
// else (no helpers from it: one thread).
export const MATMUL_HELPER_SOURCE: string = '';

// The heatmap module's public API (see README.md). draw.ts and legend.ts need the DOM; the rest
// (colormaps, range, pool, render, labels) runs anywhere.
export * from './colormaps';
export * from './range';
export * from '../../src/common/pool';
export * from './render';
export * from './draw';
export * from './labels';
export * from './legend';

// A seeded generator (mulberry32) so random tests are the same on every run.
export { rng } from '../../src/core/rng';

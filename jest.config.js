/** One jest run for the whole monorepo; file suffixes say what kind of test a file is (ARCHITECTURE §3.8). */
const { availableParallelism } = require('node:os');
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const common = {
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@lore/(.*)$': '<rootDir>/libs/$1/index.ts' },
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/libs/platform/testing/jest-setup.ts'],
};

module.exports = {
  testTimeout: 30000,
  // At least two workers, also on a two-core machine (jest's default there is one, in band):
  // most of the suite's time is spent waiting on spawned servers, NATS and timers, so two
  // workers on two cores took the whole suite from 762 s to 428 s here.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // A worker's event loop drains at once when told to end (no handle left open), but after a full
  // run it holds ~1 GB of heap and 2–3 GB RSS, and tearing that down took 380–570 ms here: past
  // jest's 500 ms grace, which then kills it and warns of a leak that is not there (README, Tests).
  workerGracefulExitTimeout: 5000,
  globalSetup: '<rootDir>/tools/jest/global-setup.cjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.unit.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int.spec.ts'] },
    { ...common, displayName: 'contract', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.contract.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.e2e.spec.ts'] },
  ],
};

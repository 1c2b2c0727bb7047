export { describeVectorIndexContract } from './vector-store.contract';
export type { VectorStoreFactory, VectorStoreFixture } from './contract-context';
export { bruteForce, randomVector, seeded, similarity } from './contract-context';
export { FILTER_CASES, FILTER_POINTS, INVALID_FILTERS } from './filter-cases';

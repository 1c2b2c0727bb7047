export * from './vectors.port';
export * from './fusion';
export * from './point-shape';
export * from './keyword-terms';
export * from './porter-stemmer';
export * from './filter-evaluator';
export * from './seeded-random';

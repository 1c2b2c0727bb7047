export * from './vectors.port';
export * from './vector-filter';
export * from './fusion';
export * from './point-shape';
export * from './keyword-terms';
export * from './porter-stemmer';
export * from './datetime';
export * from './filter-evaluator';

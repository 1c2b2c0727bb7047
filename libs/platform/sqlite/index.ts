export * from './private-database';
export * from './sqlite-temp-dir';

export * from './private-database';

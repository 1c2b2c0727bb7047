export * from './servers';

export * from './keys.context';

export * from './keys.module';

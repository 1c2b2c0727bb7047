export * from './config';
export * from './process';
export * from './lifecycle.module';

export * from './gateway';
export * from './gateway.module';
export * from './http/nest-exceptions.filter';

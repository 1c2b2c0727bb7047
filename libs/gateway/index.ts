export * from './gateway';
export * from './gateway.module';
export * from './http/nest-exceptions.filter';
export type { RateLimitRefusal, RateLimitSettings, RatePolicyName } from './http/request-rate-limits';

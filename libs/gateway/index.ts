export * from './gateway';
export * from './gateway.module';
export * from './http/nest-exceptions.filter';
export type { RateLimitSettings, RatePolicyName } from './http/request-rate-limits';
export { EVENT_ID_SECRET_FILE, eventIdSecretGeneratedMessage, loadEventIdSecret, parseEventIdSecret } from './http/event-id-secret';
export { DEFAULT_EVENT_STREAM_LIMITS, type EventStreamLimits } from './http/event-stream';

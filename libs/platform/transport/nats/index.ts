export * from './nats-transport.adapter';
export * from './event-stream';
export * from './jetstream-event-feed';
export * from './kv-rate-bucket-store';

export * from './nats-transport.adapter';
export * from './event-stream';

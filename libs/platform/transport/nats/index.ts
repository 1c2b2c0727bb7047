export * from './nats-transport.adapter';

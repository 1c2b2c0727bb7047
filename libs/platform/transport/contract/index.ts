export * from './transport.contract';
export type { TransportFactory, TransportFixture } from './contract-fixture';
export * from './event-feed.contract';

export * from './transport.port';
export * from './subjects';
export * from './typed-messages';
export * from './integration-events';
export * from './event-feed.port';
export * from './admin-messages';

export * from './sqlite-event-feed';
export * from './journaled-transport';

export * from './projection';
export * from './projection-runner';
export * from './event-processors';

export * from './gcra';
export * from './rate-bucket-store';
export * from './rate-limiter';
export * from './workspace-limits';

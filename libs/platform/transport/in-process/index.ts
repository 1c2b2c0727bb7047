export * from './in-process-transport.adapter';

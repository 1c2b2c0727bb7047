export * from './config';
export * from './process';
export * from './lifecycle.module';
export * from './telemetry-sdk';
export * from './metrics-listener';
export * from './instrumented-transport';
export * from './async-resource-bind';
export * from './v8-tiering';

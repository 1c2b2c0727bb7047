export * from './keys.service';
export * from './api-keys.read-model';
export * from './api-keys.projection';

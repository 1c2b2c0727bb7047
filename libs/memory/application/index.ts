export * from './memory.service';
export * from './memory.read-models';
export * from './memories.projection';
export * from './memory-versions.projection';

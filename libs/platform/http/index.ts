export * from './route-spec';
export * from './validation-errors';
export * from './pydantic-messages';
export * from './zod-introspection';
export * from './pagination';
export * from './openapi-schemas';
export * from './openapi';
export * from './docs-page';

import type { components, operations } from '../generated/openapi';

/** The API's named schemas (`MemoryRecord`, `ContentRecord`…), as generated from `/openapi.json`. */
export type Schemas = components['schemas'];

/** An operation's query parameters, by operationId. */
export type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;

/** An operation's JSON request body, by operationId. */
export type BodyOf<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** An operation's 200 or 201 answer, by operationId. */
export type ReplyOf<Op extends keyof operations> = operations[Op]['responses'] extends { 200: { content: { 'application/json': infer R } } }
  ? R
  : operations[Op]['responses'] extends { 201: { content: { 'application/json': infer R } } }
    ? R
    : never;

/** List parameters without the paging ones the iterators set themselves. */
export type Filters<Q> = Omit<Q, 'skip' | 'cursor'>;

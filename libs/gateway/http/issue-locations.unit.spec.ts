import { z } from 'zod';
import { AppError } from '@lore/platform/kernel';
import type { RouteSpec } from '@lore/platform/http';
import { inApiTerms } from './issue-locations';

const route: RouteSpec = {
  method: 'POST',
  path: '/api/v1/things/:thing_id',
  operationId: 'thing',
  summary: 'a thing',
  tags: [],
  auth: true,
  params: z.object({ thing_id: z.string() }),
  query: z.object({ user_id: z.string().optional() }),
  body: z.object({ memory_type: z.string(), topics: z.array(z.string()) }),
  upload: { fields: z.object({ collection_id: z.string() }), maxBytes: 10, issueLocations: { sizeBytes: ['body', 'file'] } },
  issueLocations: { sizeBytes: ['body', 'text'] },
  status: 200,
  response: z.object({}),
};

const locsOf = (loc: Array<string | number>, upload = false) => {
  const mapped = inApiTerms(new AppError('validation', 'bad', [{ loc, msg: 'bad', type: 'value_error' }]), route, upload);
  return mapped instanceof AppError ? mapped.issues.map((i) => i.loc) : [];
};

describe('inApiTerms', () => {
  it('names the API field a message field came from: path, query, body, by snake_case name, inner path kept', () => {
    expect(locsOf(['message', 'thingId'])).toEqual([['path', 'thing_id']]);
    expect(locsOf(['message', 'userId'])).toEqual([['query', 'user_id']]);
    expect(locsOf(['message', 'topics', 2])).toEqual([['body', 'topics', 2]]);
    expect(locsOf(['message', 'memoryType'])).toEqual([['body', 'memory_type']]);
    expect(locsOf(['message', 'collectionId'], true)).toEqual([['body', 'collection_id']]);
  });

  it('sees the fields of a body under wrappers, such as an optional body with a default', () => {
    const optionalBody: RouteSpec = { ...route, body: z.object({ collection_ids: z.array(z.string()).nullish() }).default({}) };
    const mapped = inApiTerms(new AppError('validation', 'bad', [{ loc: ['message', 'collectionIds', 1], msg: 'bad', type: 'value_error' }]), optionalBody, false);
    expect(mapped instanceof AppError ? mapped.issues.map((i) => i.loc) : []).toEqual([['body', 'collection_ids', 1]]);
  });

  it('uses the route\'s own table for fields the API does not take, per kind of request', () => {
    expect(locsOf(['message', 'sizeBytes'])).toEqual([['body', 'text']]);
    expect(locsOf(['message', 'sizeBytes'], true)).toEqual([['body', 'file']]);
  });

  it('falls back to the body as a whole rather than an internal name, and leaves API locations alone', () => {
    expect(locsOf(['message', 'workspaceId'])).toEqual([['body']]);
    expect(locsOf(['collectionId'])).toEqual([['body']]);
    expect(locsOf(['body', 'topics', 0])).toEqual([['body', 'topics', 0]]);
    const other = new Error('not ours');
    expect(inApiTerms(other, route, false)).toBe(other);
  });
});

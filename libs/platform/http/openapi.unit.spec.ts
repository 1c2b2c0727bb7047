import { z } from 'zod';
import { buildOpenApiDocument, toOpenApiPath, type OpenApiDocument } from './openapi';
import { commaList, cursorEnvelope, offsetEnvelope, queryBoolean, skipLimitQuery } from './pagination';
import type { RouteSpec } from './route-spec';

const Memory = z.object({ id: z.string(), content: z.string(), created_at: z.iso.datetime() }).meta({ id: 'Memory' });
const TreeNode: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: z.array(TreeNode) }));

const routes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/api/v1/memories',
    operationId: 'listMemories',
    summary: 'List memories',
    tags: ['memories'],
    auth: true,
    query: skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({ topics: commaList.optional(), q: z.string(), archived: queryBoolean.default(false).describe('Archived ones too') }),
    status: 200,
    response: offsetEnvelope(Memory),
  },
  {
    method: 'POST',
    path: '/api/v1/memories',
    operationId: 'createMemory',
    summary: 'Create a memory',
    tags: ['memories'],
    auth: true,
    body: z.object({ content: z.string().min(1), topics: z.array(z.string()).default([]) }),
    status: 201,
    response: Memory,
    errors: [409, 413],
  },
  {
    method: 'DELETE',
    path: '/api/v1/memories/:memory_id',
    operationId: 'deleteMemory',
    summary: 'Delete a memory',
    tags: ['memories'],
    auth: true,
    params: z.object({ memory_id: z.string().describe('Memory to delete') }),
    status: 200,
    response: z.object({ deleted: z.boolean() }),
    errors: [403, 404],
  },
  {
    method: 'GET',
    path: '/api/v1/trees/:tree_id/nodes/:node_id',
    operationId: 'getTree',
    summary: 'Recursive schema',
    tags: ['trees'],
    auth: true,
    params: z.object({ tree_id: z.string() }),
    status: 200,
    response: cursorEnvelope('nodes', TreeNode),
  },
  {
    method: 'GET',
    path: '/api/v1/providers/models',
    operationId: 'listProviderModels',
    summary: 'Provider models',
    tags: ['providers'],
    auth: false,
    status: 200,
    response: z.array(z.string()),
    errors: [503],
  },
];

const build = (): OpenApiDocument => buildOpenApiDocument({ title: 'Lore', version: '0.1.0', description: 'Memory service', routes });

/** Every `$ref` in the document must point at an existing component. */
function danglingRefs(doc: OpenApiDocument): string[] {
  const schemas = doc.components.schemas;
  const out: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') {
        const name = child.startsWith('#/components/schemas/') ? child.slice('#/components/schemas/'.length) : undefined;
        if (name === undefined || !(name in schemas)) out.push(child);
      } else walk(child);
    }
  };
  walk(doc);
  return out;
}

describe('buildOpenApiDocument', () => {
  const doc = build();
  const json = JSON.stringify(doc);

  it('declares OpenAPI 3.1.0 and the application version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({ title: 'Lore', version: '0.1.0', description: 'Memory service' });
  });

  it('converts Fastify paths and groups methods per path', () => {
    expect(Object.keys(doc.paths)).toEqual([
      '/api/v1/memories',
      '/api/v1/memories/{memory_id}',
      '/api/v1/trees/{tree_id}/nodes/{node_id}',
      '/api/v1/providers/models',
    ]);
    expect(Object.keys(doc.paths['/api/v1/memories'] ?? {})).toEqual(['get', 'post']);
    expect(toOpenApiPath('/a/:x_id/b/:y')).toBe('/a/{x_id}/b/{y}');
  });

  it('declares the DualAuthScheme bearer scheme and applies it to authenticated routes only', () => {
    expect(doc.components.securitySchemes['DualAuthScheme']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/api/v1/memories']?.post?.security).toEqual([{ DualAuthScheme: [] }]);
    expect(doc.paths['/api/v1/providers/models']?.get?.security).toBeUndefined();
  });

  it('documents parameters with their required flags', () => {
    const list = doc.paths['/api/v1/memories']?.get?.parameters ?? [];
    const byName = Object.fromEntries(list.map((p) => [p.name, p]));
    expect(byName['skip']).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 0, default: 0 } });
    expect(byName['limit']).toMatchObject({ in: 'query', required: false, schema: { maximum: 1000, default: 100 } });
    expect(byName['q']).toMatchObject({ in: 'query', required: true });
    expect(byName['topics']).toMatchObject({ in: 'query', required: false });
    expect(byName['X-Workspace-Id']).toMatchObject({ in: 'header', required: false });
    // A flag is a boolean to clients (`?archived=true`), not the string zod parses it from.
    expect(byName['archived']).toMatchObject({ in: 'query', required: false, description: 'Archived ones too', schema: { type: 'boolean' } });

    const del = doc.paths['/api/v1/memories/{memory_id}']?.delete?.parameters ?? [];
    expect(del[0]).toMatchObject({ name: 'memory_id', in: 'path', required: true, description: 'Memory to delete' });

    // A placeholder missing from the params schema is still documented, so the path stays valid.
    const tree = doc.paths['/api/v1/trees/{tree_id}/nodes/{node_id}']?.get?.parameters ?? [];
    expect(tree.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(['tree_id', 'node_id']);

    expect(doc.paths['/api/v1/providers/models']?.get?.parameters).toBeUndefined();
  });

  it('documents the request body and success status', () => {
    const post = doc.paths['/api/v1/memories']?.post;
    expect(post?.requestBody?.required).toBe(true);
    const bodySchema = post?.requestBody?.content['application/json']?.schema;
    // Input view: a defaulted field is optional for the caller.
    expect(bodySchema).toMatchObject({ type: 'object', required: ['content'] });
    expect(post?.responses['201']?.content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/Memory' });
    expect(post?.responses['200']).toBeUndefined();
  });

  it('documents a body that accepts {} as optional: the gateway reads no body as {}', () => {
    const allOptional: RouteSpec = {
      method: 'POST',
      path: '/api/v1/notes',
      operationId: 'createNote',
      summary: 'Every field optional',
      tags: ['notes'],
      auth: true,
      body: z.object({ title: z.string().optional(), tags: z.array(z.string()).default([]) }),
      status: 201,
      response: z.object({ id: z.string() }),
    };
    const notes = buildOpenApiDocument({ title: 't', version: '1', routes: [allOptional] });
    expect(notes.paths['/api/v1/notes']?.post?.requestBody?.required).toBe(false);
    expect(notes.paths['/api/v1/notes']?.post?.requestBody?.content['application/json']?.schema).not.toHaveProperty('minProperties');
  });

  it('documents an all-optional body that is refused empty with minProperties: 1', () => {
    const change: RouteSpec = {
      method: 'PATCH',
      path: '/api/v1/notes/:note_id',
      operationId: 'updateNote',
      summary: 'At least one field',
      tags: ['notes'],
      auth: true,
      params: z.object({ note_id: z.string() }),
      body: z.object({ title: z.string().optional(), body: z.string().optional() }).refine((b) => Object.keys(b).length > 0, { message: 'Give a field' }),
      status: 200,
      response: z.object({ id: z.string() }),
    };
    const notes = buildOpenApiDocument({ title: 't', version: '1', routes: [change] });
    const body = notes.paths['/api/v1/notes/{note_id}']?.patch?.requestBody;
    expect(body?.required).toBe(true);
    expect(body?.content['application/json']?.schema).toMatchObject({ type: 'object', minProperties: 1 });
  });

  it('documents errors with FastAPI components', () => {
    const post = doc.paths['/api/v1/memories']?.post;
    expect(Object.keys(post?.responses ?? {})).toEqual(['201', '401', '403', '409', '413', '422', '429']);
    expect(Object.keys(post?.responses['429']?.headers ?? {})).toEqual(['Retry-After', 'RateLimit', 'RateLimit-Policy']);
    expect(post?.responses['401']?.content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/HTTPError' });
    expect(post?.responses['422']?.content?.['application/json'].schema).toEqual({ $ref: '#/components/schemas/HTTPValidationError' });
    expect(doc.components.schemas['HTTPValidationError']).toMatchObject({
      properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
    });
    expect(doc.components.schemas['ValidationError']).toMatchObject({
      required: ['loc', 'msg', 'type'],
      properties: { loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } },
    });
    expect(doc.components.schemas['HTTPError']).toMatchObject({ properties: { detail: { type: 'string' } }, required: ['detail'] });

    // No input at all: nothing to validate, no credential to check.
    const open = doc.paths['/api/v1/providers/models']?.get;
    expect(Object.keys(open?.responses ?? {})).toEqual(['200', '503']);
  });

  it('strips $schema and leaves no dangling references, including for recursive schemas', () => {
    expect(json).not.toContain('$schema');
    expect(json).not.toContain('#/$defs/');
    expect(json).not.toContain('"$ref":"#"');
    expect(danglingRefs(doc)).toEqual([]);
  });

  it('lists tags and is deterministic', () => {
    expect(doc.tags).toEqual([{ name: 'memories' }, { name: 'trees' }, { name: 'providers' }]);
    expect(JSON.stringify(build())).toBe(json);
    const names = Object.keys(doc.components.schemas);
    expect(names).toEqual([...names].sort());
  });

  it('rejects duplicate operations and params that are not in the path', () => {
    const first = routes[0] as RouteSpec;
    expect(() => buildOpenApiDocument({ title: 't', version: '1', routes: [first, first] })).toThrow(/duplicate operationId/);
    const wrongParam: RouteSpec = { ...first, operationId: 'x', params: z.object({ nope: z.string() }) };
    expect(() => buildOpenApiDocument({ title: 't', version: '1', routes: [wrongParam] })).toThrow(/not in/);
  });
});

describe('buildOpenApiDocument: browser redirects', () => {
  it('documents a 302 route by its Location header only, with no body and no security', () => {
    const redirect: RouteSpec = {
      method: 'GET',
      path: '/api/v1/connect/callback',
      operationId: 'callback',
      summary: 'OAuth callback',
      tags: ['connect'],
      auth: false,
      query: z.object({ state: z.string().optional() }),
      status: 302,
      response: z.object({ location: z.string() }),
      errors: [400],
    };
    const operation = buildOpenApiDocument({ title: 'Lore', version: '0.1.0', description: 'x', routes: [redirect] }).paths['/api/v1/connect/callback']?.['get'];
    expect(Object.keys(operation?.responses ?? {})).toEqual(['302', '400', '422']);
    expect(operation?.responses['302']).toEqual({ description: expect.any(String), headers: { Location: expect.objectContaining({ schema: { type: 'string', format: 'uri' } }) } });
    expect(operation).not.toHaveProperty('security');
  });
});

describe('buildOpenApiDocument: work under way', () => {
  it('documents the 202 of a route declaring `accepted` with the same body as its 200, and none for others', () => {
    const deletion: RouteSpec = {
      method: 'DELETE',
      path: '/api/v1/things/:thing_id',
      operationId: 'delete_thing',
      summary: 'Delete a thing',
      tags: ['things'],
      auth: false,
      params: z.object({ thing_id: z.string() }),
      status: 200,
      response: z.object({ id: z.string(), message: z.string() }),
      accepted: 'Deleted; its erasure is under way',
    };
    const { accepted: _accepted, ...rest } = deletion;
    const plain: RouteSpec = { ...rest, method: 'GET', operationId: 'get_thing' };
    const document = buildOpenApiDocument({ title: 'Lore', version: '0.1.0', routes: [deletion, plain] });
    const responses = document.paths['/api/v1/things/{thing_id}']?.['delete']?.responses ?? {};
    expect(Object.keys(responses)).toEqual(['200', '202', '422']);
    expect(responses['202']).toEqual({ description: 'Deleted; its erasure is under way', content: responses['200']?.content });
    expect(Object.keys(document.paths['/api/v1/things/{thing_id}']?.['get']?.responses ?? {})).toEqual(['200', '422']);
  });
});

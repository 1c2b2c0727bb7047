import type { z } from 'zod';
import { ComponentSchemas, type JsonObject } from './openapi-schemas';
import type { HttpMethod, RouteSpec } from './route-spec';

/** SPEC 5.1: the bearer scheme's name is part of the published contract. */
export const SECURITY_SCHEME_NAME = 'DualAuthScheme';
export const WORKSPACE_HEADER = 'X-Workspace-Id';

export interface OpenApiOptions {
  readonly title: string;
  /** The application's version (SPEC 9: "0.1.0"), not the OpenAPI format version. */
  readonly version: string;
  readonly description?: string;
  readonly routes: readonly RouteSpec[];
}

export interface OpenApiParameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly schema: JsonObject;
  readonly description?: string;
}

export interface OpenApiOperation {
  readonly operationId: string;
  readonly summary: string;
  readonly tags: string[];
  readonly parameters?: OpenApiParameter[];
  readonly requestBody?: { required: boolean; content: { 'application/json'?: { schema: JsonObject }; 'multipart/form-data'?: { schema: JsonObject } } };
  readonly responses: Record<string, OpenApiResponse>;
  readonly security?: Array<Record<string, string[]>>;
}

export interface OpenApiResponse {
  readonly description: string;
  readonly content?: { 'application/json': { schema: JsonObject } } & Record<string, { schema: JsonObject }>;
  readonly headers?: Record<string, { description: string; schema: JsonObject }>;
}

/**
 * What a 429 from the gateway's rate limits carries (draft-ietf-httpapi-ratelimit-headers);
 * RateLimit and RateLimit-Policy come on every rate-limited answer, successful ones too.
 */
const RATE_LIMIT_HEADERS: NonNullable<OpenApiResponse['headers']> = {
  'Retry-After': { description: 'Seconds until the request would be admitted', schema: { type: 'integer', minimum: 1 } },
  RateLimit: { description: 'The refusing policy\'s remaining units and seconds until one frees: `"caller";r=0;t=12`', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'The policies that apply: `"caller";q=6000;w=60, "workspace";q=24000;w=60`', schema: { type: 'string' } },
};

export type OpenApiPathItem = Partial<Record<Lowercase<HttpMethod>, OpenApiOperation>>;

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { title: string; version: string; description?: string };
  readonly paths: Record<string, OpenApiPathItem>;
  readonly components: {
    schemas: JsonObject;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description: string }>;
  };
  readonly tags: Array<{ name: string }>;
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** FastAPI's error components, so generated clients keep their types. */
function defineErrorComponents(components: ComponentSchemas): void {
  components.define('HTTPError', {
    type: 'object',
    title: 'HTTPError',
    properties: { detail: { type: 'string', title: 'Detail' } },
    required: ['detail'],
  });
  components.define('ValidationError', {
    type: 'object',
    title: 'ValidationError',
    properties: {
      loc: { type: 'array', title: 'Location', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
      msg: { type: 'string', title: 'Message' },
      type: { type: 'string', title: 'Error Type' },
    },
    required: ['loc', 'msg', 'type'],
  });
  components.define('HTTPValidationError', {
    type: 'object',
    title: 'HTTPValidationError',
    properties: { detail: { type: 'array', title: 'Detail', items: ref('ValidationError') } },
  });
}

/** ARCHITECTURE 4: the connection checks answer 400 with one message per failed check. */
function defineCheckErrorComponent(components: ComponentSchemas): void {
  components.define('HTTPCheckError', {
    type: 'object',
    title: 'HTTPCheckError',
    properties: {
      detail: {
        type: 'object',
        properties: { message: { type: 'string' }, errors: { type: 'array', items: { type: 'string' } } },
        required: ['message', 'errors'],
      },
    },
    required: ['detail'],
  });
}

const ERROR_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  422: 'Validation Error',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Fastify's `/a/:id` becomes OpenAPI's `/a/{id}`. */
export function toOpenApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function pathParamNames(fastifyPath: string): string[] {
  return [...fastifyPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] ?? '');
}

function objectParameters(
  components: ComponentSchemas,
  schema: z.ZodObject,
  location: 'path' | 'query',
  context: string,
): OpenApiParameter[] {
  const json = components.deref(components.embed(schema, 'input', context));
  const properties = json['properties'];
  const required = json['required'];
  const requiredNames = new Set(Array.isArray(required) ? required.filter((r) => typeof r === 'string') : []);
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return [];
  return Object.entries(properties).map(([name, property]) => {
    const propertySchema: JsonObject = typeof property === 'object' && property !== null && !Array.isArray(property) ? property : {};
    const description = propertySchema['description'];
    return {
      name,
      in: location,
      // OpenAPI requires path parameters to be marked required whatever the schema says.
      required: location === 'path' || requiredNames.has(name),
      schema: propertySchema,
      ...(typeof description === 'string' ? { description } : {}),
    };
  });
}

function parametersOf(components: ComponentSchemas, route: RouteSpec): OpenApiParameter[] {
  const fromPath = route.params ? objectParameters(components, route.params, 'path', `${route.operationId}_params`) : [];
  const declared = new Set(fromPath.map((p) => p.name));
  const inPath = pathParamNames(route.path);
  for (const name of declared) {
    if (!inPath.includes(name)) throw new Error(`${route.operationId}: path parameter "${name}" is not in ${route.path}`);
  }
  // A placeholder without a schema still has to be documented for the path to be valid.
  const undeclared: OpenApiParameter[] = inPath
    .filter((name) => !declared.has(name))
    .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const fromQuery = route.query ? objectParameters(components, route.query, 'query', `${route.operationId}_query`) : [];
  const header: OpenApiParameter[] = route.auth
    ? [
        {
          name: WORKSPACE_HEADER,
          in: 'header',
          required: false,
          schema: { anyOf: [{ type: 'string' }, { type: 'null' }], title: WORKSPACE_HEADER },
          description: 'Workspace to act in; defaults to the credential\'s own workspace.',
        },
      ]
    : [];
  return [...fromPath, ...undeclared, ...fromQuery, ...header];
}

function errorResponse(status: number): OpenApiResponse {
  const component = status === 422 ? 'HTTPValidationError' : status === 400 ? 'HTTPCheckError' : 'HTTPError';
  return {
    description: ERROR_DESCRIPTIONS[status] ?? 'Error',
    content: { 'application/json': { schema: ref(component) } },
    ...(status === 429 ? { headers: RATE_LIMIT_HEADERS } : {}),
  };
}

/** A browser endpoint's answer: where to go next, nothing to read. */
const REDIRECT_RESPONSE = {
  description: 'Found: the browser is sent on to `Location`',
  headers: { Location: { description: 'Where the browser goes next', schema: { type: 'string', format: 'uri' } } },
} as const;

function operationOf(components: ComponentSchemas, route: RouteSpec): OpenApiOperation {
  const parameters = parametersOf(components, route);
  const statuses = new Set<number>(route.errors ?? []);
  if (route.auth) {
    statuses.add(401);
    // 403 is also a storage quota reached (memories, conversations, content bytes, chunks).
    statuses.add(403);
    // Every authenticated route draws on the caller's and the workspace's request rates.
    statuses.add(429);
  }
  // FastAPI documents 422 exactly when there is request input to validate.
  if (parameters.length > 0 || route.body) statuses.add(422);
  if (statuses.has(400)) defineCheckErrorComponent(components);

  const body = route.status === 302 ? null : components.embed(route.response, 'output', `${route.operationId}_response`);
  const responses: OpenApiOperation['responses'] = body === null ? { '302': REDIRECT_RESPONSE } : {
    [String(route.status)]: {
      description: 'Successful Response',
      content: {
        'application/json': { schema: body },
        ...Object.fromEntries((route.textResponses ?? []).map((type) => [type, { schema: { type: 'string' } }])),
      },
    },
    // Stored and under way, but not done within the request's wait: the same body.
    ...(route.accepted === undefined ? {} : { '202': { description: route.accepted, content: { 'application/json': { schema: body } } } }),
  };
  for (const status of [...statuses].sort((a, b) => a - b)) responses[String(status)] = errorResponse(status);

  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [...route.tags],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: !bodyMayBeOmitted(route.body),
            content: {
              'application/json': { schema: refusingEmpty(components.embed(route.body, 'input', `${route.operationId}_body`), route.body) },
              ...(route.upload ? { 'multipart/form-data': { schema: uploadSchema(components.embed(route.upload.fields, 'input', `${route.operationId}_upload`)) } } : {}),
            },
          },
        }
      : {}),
    responses,
    ...(route.auth ? { security: [{ [SECURITY_SCHEME_NAME]: [] }] } : {}),
  };
}

/**
 * An object body whose every field is optional, but which a refinement refuses empty ("give at
 * least one field to change"), documented with `minProperties: 1`: JSON Schema cannot say
 * which field, but clients and fuzzers then know `{}` is no valid change.
 */
function refusingEmpty(schema: JsonObject, body: z.ZodType): JsonObject {
  const optionalOnly = schema['type'] === 'object' && !Array.isArray(schema['required']) && schema['minProperties'] === undefined;
  return optionalOnly && !bodyMayBeOmitted(body) ? { ...schema, minProperties: 1 } : schema;
}

/**
 * Whether a caller may send no body: the gateway validates an absent body as `{}`
 * (register-routes), so exactly a body schema that accepts `{}` (every field optional) takes none.
 */
function bodyMayBeOmitted(body: z.ZodType): boolean {
  try {
    return body.safeParse({}).success;
  } catch {
    // An async refinement cannot be run here; such a body is documented as required.
    return false;
  }
}

/**
 * The `/openapi.json` document, generated from the same RouteSpecs (and zod schemas)
 * the gateway validates with, so docs and behaviour cannot drift. Output depends only
 * on the arguments: paths in route order, components sorted by name.
 */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const components = new ComponentSchemas();
  defineErrorComponents(components);
  const paths: Record<string, OpenApiPathItem> = {};
  const operationIds = new Set<string>();
  const tags: string[] = [];

  for (const route of options.routes) {
    if (operationIds.has(route.operationId)) throw new Error(`duplicate operationId "${route.operationId}"`);
    operationIds.add(route.operationId);
    const path = toOpenApiPath(route.path);
    const method = route.method.toLowerCase() as Lowercase<HttpMethod>;
    const item = (paths[path] ??= {});
    if (item[method]) throw new Error(`duplicate route ${route.method} ${route.path}`);
    item[method] = operationOf(components, route);
    for (const tag of route.tags) if (!tags.includes(tag)) tags.push(tag);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      ...(options.description !== undefined ? { description: options.description } : {}),
    },
    paths,
    components: {
      schemas: components.toObject(),
      securitySchemes: {
        [SECURITY_SCHEME_NAME]: { type: 'http', scheme: 'bearer', description: 'A JWT or an API key, sent as a bearer token.' },
      },
    },
    tags: tags.map((name) => ({ name })),
  };
}

/** The upload's fields plus its one binary part, `file`. */
function uploadSchema(fields: JsonObject): JsonObject {
  const properties = (fields['properties'] ?? {}) as JsonObject;
  const required = Array.isArray(fields['required']) ? (fields['required'] as string[]) : [];
  return { ...fields, type: 'object', properties: { ...properties, file: { type: 'string', format: 'binary' } }, required: ['file', ...required] };
}

import { z } from 'zod';
import { ComponentSchemas, type JsonObject } from './openapi-schemas';

/**
 * One context's integration events as the edge publishes their description: the zod schema
 * that types (and tests) every payload, and one sentence per `type` saying when it is sent.
 * The AsyncAPI document is generated from it, so schema and documentation cannot drift.
 */
export interface IntegrationEventsSpec {
  /** Component name of the payload schema, e.g. `MemoryIntegrationEvent`. */
  readonly name: string;
  readonly schema: z.ZodObject;
  /** What the payload carries and what it deliberately leaves out. */
  readonly description: string;
  /** When each event type is published, keyed by every value of the schema's `type` enum. */
  readonly published: Readonly<Record<string, string>>;
}

type EventType<S extends z.ZodObject> = z.output<S> extends { type: infer T extends string } ? T : never;

/**
 * Typed constructor: `published` must name every `type` of the schema (checked by the compiler
 * for literals and here at runtime for the rest), so a new event type cannot go undocumented.
 */
export function integrationEvents<S extends z.ZodObject>(spec: {
  readonly name: string;
  readonly schema: S;
  readonly description: string;
  readonly published: Readonly<Record<EventType<S>, string>>;
}): IntegrationEventsSpec {
  const types = eventTypes(spec.schema);
  const documented = Object.keys(spec.published).sort();
  if (JSON.stringify(documented) !== JSON.stringify([...types].sort())) {
    throw new Error(`${spec.name}: published must describe exactly ${types.join(', ')} (got ${documented.join(', ')})`);
  }
  return spec;
}

/** The values of the schema's `type` enum, in declaration order. */
export function eventTypes(schema: z.ZodObject): readonly string[] {
  const type = (schema.shape as Readonly<Record<string, z.ZodType | undefined>>)['type'];
  if (!(type instanceof z.ZodEnum)) throw new Error('an integration event schema needs a `type` enum');
  return type.options.filter((v): v is string => typeof v === 'string');
}

export interface AsyncApiServer {
  readonly host: string;
  readonly protocol: 'nats';
  readonly description?: string;
  readonly variables?: Record<string, { default: string; description: string }>;
}

export interface AsyncApiOptions {
  readonly title: string;
  /** The application's version, not the AsyncAPI format version. */
  readonly version: string;
  readonly description?: string;
  /** What comes before `<type>` in every subject, e.g. `lore.events` (deployment prefix included). */
  readonly subjectPrefix: string;
  readonly servers: Readonly<Record<string, AsyncApiServer>>;
  /** Each context and what it publishes; a context without integration events lists none. */
  readonly contexts: readonly { readonly name: string; readonly events?: readonly IntegrationEventsSpec[] }[];
}

export interface AsyncApiDocument {
  readonly asyncapi: '3.0.0';
  readonly info: { title: string; version: string; description?: string };
  readonly defaultContentType: 'application/json';
  readonly servers: Record<string, AsyncApiServer>;
  readonly channels: Record<string, JsonObject>;
  readonly operations: Record<string, JsonObject>;
  readonly components: { messages: Record<string, JsonObject>; schemas: JsonObject };
}

/** The last subject token: the workspace id, one NATS token (see `workspaceToken` in the transport port). */
const WORKSPACE_PARAMETER = {
  description: 'The workspace id as one NATS token: its UTF-8 bytes, `[A-Za-z0-9-]` as they are and every other byte %XX-escaped (`_` for an empty id). Subscribe to `*` for every workspace.',
  examples: ['acme-prod'],
};

/**
 * The NATS body is a `@nestjs/microservices` event packet (transport/nats/nats-wire.codec.ts),
 * so a stock Nest `@EventPattern` receives it: the event travels in `data`, beside `pattern`.
 */
function nestEventPacket(eventSchemaName: string): JsonObject {
  return {
    type: 'object',
    description: 'A @nestjs/microservices event packet: `pattern` is the subject, `data` the integration event.',
    properties: {
      pattern: { type: 'string', description: 'The subject the event was published on.' },
      data: { $ref: `#/components/schemas/${eventSchemaName}` },
    },
    required: ['pattern', 'data'],
  };
}

/** JetStream de-duplicates on the message id, which is the event id (transport port: publishIntegrationEvent). */
const MESSAGE_HEADERS: JsonObject = {
  type: 'object',
  properties: { 'Nats-Msg-Id': { type: 'string', description: 'The `event_id` (set where the JetStream stream holds the subject).' } },
};

/** `memory.created` → `sendMemoryCreated`: operation ids read like verbs in generated clients. */
const operationId = (type: string): string => `send${type.split(/[._]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`;

/**
 * The `/asyncapi.json` document: one channel per event type (`<prefix>.<type>.{workspace}`),
 * one `send` operation on it (Lore publishes, consumers subscribe), one message whose payload's
 * `data` is the JSON Schema of the zod schema (a component), converted exactly as `/openapi.json`
 * converts its bodies. Output depends only on the arguments: channels in context order.
 */
export function buildAsyncApiDocument(options: AsyncApiOptions): AsyncApiDocument {
  const schemas = new ComponentSchemas();
  const channels: Record<string, JsonObject> = {};
  const operations: Record<string, JsonObject> = {};
  const messages: Record<string, JsonObject> = {};

  for (const context of options.contexts) {
    for (const spec of context.events ?? []) {
      if (schemas.get(spec.name) !== undefined) throw new Error(`duplicate integration event schema "${spec.name}"`);
      // The payload as a named component; `output` is what publishers produce and subscribers read.
      const payload = schemas.embed(spec.schema, 'output', spec.name);
      // A recursive root is already stored under `name` (embed answered a $ref to it).
      if (payload['$ref'] === undefined) schemas.define(spec.name, { ...payload, title: spec.name, description: spec.description });
      for (const type of eventTypes(spec.schema)) {
        if (channels[type] !== undefined) throw new Error(`integration event type "${type}" is declared twice`);
        const summary = spec.published[type] ?? '';
        messages[type] = {
          name: type,
          title: type,
          summary,
          contentType: 'application/json',
          headers: MESSAGE_HEADERS,
          payload: nestEventPacket(spec.name),
          tags: [{ name: context.name }],
        };
        channels[type] = {
          address: `${options.subjectPrefix}.${type}.{workspace}`,
          title: type,
          description: `\`${type}\` events of one workspace; the payload's \`type\` is \`${type}\`.`,
          messages: { [type]: { $ref: `#/components/messages/${type}` } },
          parameters: { workspace: WORKSPACE_PARAMETER },
        };
        operations[operationId(type)] = {
          action: 'send',
          channel: { $ref: `#/channels/${type}` },
          summary,
          messages: [{ $ref: `#/channels/${type}/messages/${type}` }],
          tags: [{ name: context.name }],
        };
      }
    }
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: options.title,
      version: options.version,
      ...(options.description !== undefined ? { description: options.description } : {}),
    },
    defaultContentType: 'application/json',
    servers: { ...options.servers },
    channels,
    operations,
    components: { messages, schemas: schemas.toObject() },
  };
}

import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { join } from 'node:path';
import type { z } from 'zod';
import { ComponentSchemas, eventTypes } from '@lore/platform/http';
import { ApiKeyIntegrationEvent } from '@lore/keys/contracts';
import { MemoryIntegrationEvent } from '@lore/memory/contracts';
import { ConversationIntegrationEvent } from '@lore/conversations/contracts';
import { ConnectionIntegrationEvent } from '@lore/connections/contracts';
import { ContentIntegrationEvent } from '@lore/knowledge/contracts';
import { keysEdge } from '@lore/keys/http';
import { memoryEdge } from '@lore/memory/http';
import { conversationsEdge } from '@lore/conversations/http';
import { connectionsEdge } from '@lore/connections/http';
import { knowledgeEdge } from '@lore/knowledge/http';
import { gatewayAsyncApiDocument, natsServers } from './asyncapi-document';

/** The edges apps/contexts.ts registers, with the contract schema each one's events must document. */
const EDGES = [connectionsEdge, conversationsEdge, keysEdge, knowledgeEdge, memoryEdge];
const SCHEMAS: Record<string, z.ZodObject> = {
  ApiKeyIntegrationEvent,
  MemoryIntegrationEvent,
  ConversationIntegrationEvent,
  ConnectionIntegrationEvent,
  ContentIntegrationEvent,
};

describe('the gateway /asyncapi.json document', () => {
  const doc = gatewayAsyncApiDocument({ natsSubjectPrefix: 'acme' }, EDGES.map((edge) => ({ name: edge.name, events: edge.events ?? [] })));

  it.each([
    ['without NATS_URL', doc],
    ['with NATS_URL', gatewayAsyncApiDocument({ natsSubjectPrefix: 'acme', natsUrl: 'nats://user:pw@nats-1:4222,nats://nats-2:4222' }, EDGES.map((edge) => ({ name: edge.name, events: edge.events ?? [] })))],
  ])('is valid against the official AsyncAPI 3.0.0 JSON Schema (%s)', (_when, document) => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(require.resolve('@asyncapi/specs/schemas/3.0.0-without-$id.json'), 'utf8')) as object);
    const valid = validate(JSON.parse(JSON.stringify(document)));
    expect(valid ? [] : validate.errors?.slice(0, 5)).toEqual([]);
  });

  it('has a channel, a send operation and a message for every type of every integration event schema', () => {
    const types = Object.values(SCHEMAS).flatMap((schema) => eventTypes(schema));
    expect(types).toHaveLength(24);
    expect(Object.keys(doc.channels).sort()).toEqual([...types].sort());
    expect(Object.keys(doc.components.messages).sort()).toEqual([...types].sort());
    expect(Object.values(doc.operations).map((op) => op['action'])).toEqual(types.map(() => 'send'));
    // Every message says when it is published.
    for (const type of types) expect(doc.components.messages[type]?.['summary']).toMatch(/\w{3,}/);
  });

  it('addresses channels under <NATS_SUBJECT_PREFIX>.events with the workspace token last', () => {
    expect(doc.channels['memory.created']?.['address']).toBe('acme.events.memory.created.{workspace}');
    expect(doc.channels['api_key.revoked']?.['address']).toBe('acme.events.api_key.revoked.{workspace}');
    for (const channel of Object.values(doc.channels)) expect(channel['address']).toMatch(/^acme\.events\.[a-z_]+\.[a-z_]+\.\{workspace\}$/);
    expect(gatewayAsyncApiDocument({}, []).info.description).toContain('<prefix>.events.>');
    const defaultPrefix = gatewayAsyncApiDocument({}, [{ name: 'memory', events: memoryEdge.events ?? [] }]);
    expect(defaultPrefix.channels['memory.deleted']?.['address']).toBe('lore.events.memory.deleted.{workspace}');
  });

  it('gives each payload the JSON Schema of its zod schema', () => {
    for (const [name, schema] of Object.entries(SCHEMAS)) {
      const expected = new ComponentSchemas().embed(schema, 'output', name);
      expect(doc.components.schemas[name]).toMatchObject(expected);
    }
    expect(doc.components.messages['memory.created']?.['payload']).toMatchObject({ properties: { data: { $ref: '#/components/schemas/MemoryIntegrationEvent' } } });
  });

  it('is the one the README tables: every subject appears in "Integration events (AsyncAPI)"', () => {
    const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Integration events (AsyncAPI)'));
    const table = section.slice(0, section.indexOf('\n## ', 1));
    for (const type of Object.keys(doc.channels)) expect(table).toContain(`| \`events.${type}\` |`);
  });

  it('names the NATS server by host only, never with credentials, and a placeholder without NATS_URL', () => {
    expect(natsServers('nats://user:secret@nats.internal:4222')).toEqual({ nats: { host: 'nats.internal:4222', protocol: 'nats', description: expect.any(String) } });
    expect(Object.values(natsServers('nats://a:4222, b:4223')).map((s) => s.host)).toEqual(['a:4222', 'b:4223']);
    expect(natsServers(undefined)['nats']).toMatchObject({ host: '{host}', protocol: 'nats', variables: { host: { default: 'localhost:4222' } } });
    expect(JSON.stringify(gatewayAsyncApiDocument({ natsUrl: 'nats://u:p4ss@h:1' }, []))).not.toContain('p4ss');
  });
});

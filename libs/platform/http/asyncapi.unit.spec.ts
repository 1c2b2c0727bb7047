import Ajv2020 from 'ajv/dist/2020';
import { z } from 'zod';
import { buildAsyncApiDocument, eventTypes, integrationEvents, type AsyncApiDocument, type IntegrationEventsSpec } from './asyncapi';
import { ComponentSchemas } from './openapi-schemas';

const Status = z.enum(['on', 'off']).meta({ id: 'WidgetStatus' });
const WidgetEvent = z.object({
  type: z.enum(['widget.created', 'widget.status_changed']),
  event_id: z.string(),
  workspace_id: z.string(),
  version: z.number().int(),
  status: z.object({ from: Status, to: Status }).nullable(),
});
const GadgetEvent = z.object({ type: z.enum(['gadget.deleted']), event_id: z.string(), workspace_id: z.string() });

const widgets = integrationEvents({
  name: 'WidgetIntegrationEvent',
  schema: WidgetEvent,
  description: 'A widget changed.',
  published: { 'widget.created': 'A widget was created.', 'widget.status_changed': 'A widget was switched.' },
});
const gadgets = integrationEvents({ name: 'GadgetIntegrationEvent', schema: GadgetEvent, description: 'A gadget went.', published: { 'gadget.deleted': 'A gadget was deleted.' } });

const build = (contexts: readonly { name: string; events?: readonly IntegrationEventsSpec[] }[] = [{ name: 'widgets', events: [widgets] }, { name: 'empty' }, { name: 'gadgets', events: [gadgets] }]): AsyncApiDocument =>
  buildAsyncApiDocument({ title: 'Lore', version: '0.1.0', subjectPrefix: 'acme.events', servers: { nats: { host: 'nats:4222', protocol: 'nats' } }, contexts });

/** Every local `$ref` must resolve inside the document. */
function danglingRefs(doc: AsyncApiDocument): string[] {
  const out: string[] = [];
  const resolve = (pointer: string): unknown =>
    pointer
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc);
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (typeof value !== 'object' || value === null) return;
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && resolve(child) === undefined) out.push(child);
      else walk(child);
    }
  };
  walk(doc);
  return out;
}

describe('buildAsyncApiDocument', () => {
  const doc = build();

  it('declares AsyncAPI 3.0.0, JSON content and the NATS server', () => {
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.info).toEqual({ title: 'Lore', version: '0.1.0' });
    expect(doc.defaultContentType).toBe('application/json');
    expect(doc.servers).toEqual({ nats: { host: 'nats:4222', protocol: 'nats' } });
  });

  it('has one channel per event type, addressed under the prefix with the workspace as a parameter', () => {
    expect(Object.keys(doc.channels)).toEqual(['widget.created', 'widget.status_changed', 'gadget.deleted']);
    expect(doc.channels['widget.created']).toMatchObject({
      address: 'acme.events.widget.created.{workspace}',
      messages: { 'widget.created': { $ref: '#/components/messages/widget.created' } },
      parameters: { workspace: { description: expect.any(String) } },
    });
  });

  it('has one send operation per channel, tagged with its context', () => {
    expect(doc.operations['sendWidgetStatusChanged']).toEqual({
      action: 'send',
      channel: { $ref: '#/channels/widget.status_changed' },
      summary: 'A widget was switched.',
      messages: [{ $ref: '#/channels/widget.status_changed/messages/widget.status_changed' }],
      tags: [{ name: 'widgets' }],
    });
    expect(Object.keys(doc.operations)).toHaveLength(3);
  });

  it('describes each message with its summary and the payload schema component', () => {
    expect(doc.components.messages['gadget.deleted']).toEqual({
      name: 'gadget.deleted',
      title: 'gadget.deleted',
      summary: 'A gadget was deleted.',
      contentType: 'application/json',
      headers: { type: 'object', properties: { 'Nats-Msg-Id': expect.objectContaining({ type: 'string' }) } },
      // The Nest event packet on the wire, the event in `data`.
      payload: {
        type: 'object',
        description: expect.any(String),
        properties: { pattern: expect.objectContaining({ type: 'string' }), data: { $ref: '#/components/schemas/GadgetIntegrationEvent' } },
        required: ['pattern', 'data'],
      },
      tags: [{ name: 'gadgets' }],
    });
  });

  it('converts payloads exactly as /openapi.json converts bodies, and the zod-valid events validate', () => {
    const expected = new ComponentSchemas();
    const payload = expected.embed(WidgetEvent, 'output', 'WidgetIntegrationEvent');
    expect(doc.components.schemas['WidgetIntegrationEvent']).toEqual({ ...payload, title: 'WidgetIntegrationEvent', description: 'A widget changed.' });
    // Named parts are lifted into components like in OpenAPI.
    expect(doc.components.schemas['WidgetStatus']).toEqual({ type: 'string', enum: ['on', 'off'] });
    expect(danglingRefs(doc)).toEqual([]);

    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc.json', components: doc.components }, 'doc.json');
    const validate = ajv.compile({ $ref: 'doc.json#/components/schemas/WidgetIntegrationEvent' });
    const event = WidgetEvent.parse({ type: 'widget.status_changed', event_id: 'e1', workspace_id: 'w', version: 2, status: { from: 'on', to: 'off' } });
    expect(validate(event)).toBe(true);
    expect(validate({ ...event, type: 'widget.gone' })).toBe(false);
  });

  it('is deterministic, and keeps out $schema and local $defs', () => {
    const json = JSON.stringify(doc);
    expect(JSON.stringify(build())).toBe(json);
    expect(json).not.toContain('$schema');
    expect(json).not.toContain('#/$defs/');
  });

  it('refuses an undocumented or unknown type, a schema without a type enum and duplicates', () => {
    expect(eventTypes(GadgetEvent)).toEqual(['gadget.deleted']);
    const loose = { name: 'W', schema: WidgetEvent as z.ZodObject, description: '', published: { 'widget.created': 'x' } };
    expect(() => integrationEvents(loose)).toThrow(/exactly widget.created, widget.status_changed/);
    expect(() => eventTypes(z.object({ type: z.string() }))).toThrow(/`type` enum/);
    expect(() => build([{ name: 'a', events: [gadgets] }, { name: 'b', events: [gadgets] }])).toThrow(/duplicate/);
    const sameType: IntegrationEventsSpec = { ...gadgets, name: 'Other' };
    expect(() => build([{ name: 'a', events: [gadgets, sameType] }])).toThrow(/declared twice/);
  });
});

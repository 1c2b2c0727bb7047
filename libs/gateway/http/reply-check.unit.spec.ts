import { z } from 'zod';
import type { RouteSpec } from '@lore/platform/http';
import { replyMismatch } from './reply-check';

const spec = (response: z.ZodType): RouteSpec => ({ method: 'GET', path: '/x', operationId: 'x', summary: 'x', tags: [], auth: false, status: 200, response });
const Item = z.object({ id: z.string(), tags: z.array(z.string()), extra: z.record(z.string(), z.unknown()) });
const Page = z.object({ items: z.array(Item), total: z.number().int() });

describe('replyMismatch', () => {
  it('accepts a reply in the schema, open records included', () => {
    expect(replyMismatch(spec(Page), { items: [{ id: 'a', tags: [], extra: { anything: { nested: 1 } } }], total: 1 })).toBeNull();
  });

  it('names a field of the wrong type with its path', () => {
    expect(replyMismatch(spec(Page), { items: [{ id: 7, tags: [], extra: {} }], total: 1 })).toMatch(/^reply\.items\.0\.id: /);
  });

  it('names fields the schema does not describe, however deep', () => {
    expect(replyMismatch(spec(Page), { items: [{ id: 'a', tags: [], extra: {}, secret: 's' }], total: 1, cursor: null })).toBe(
      'fields the schema does not describe: reply.items.0.secret, reply.cursor',
    );
  });

  it('checks the wire form: undefined fields are not sent, dates are strings', () => {
    const Dated = z.object({ at: z.string(), note: z.string().optional() });
    expect(replyMismatch(spec(Dated), { at: new Date(0), note: undefined })).toBeNull();
  });
});

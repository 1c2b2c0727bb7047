import type { Projection } from '@lore/platform/projections';
import { projectionSpec } from './projection-spec';
import { recordedEvent } from './recorded-event';

/** The helper is only useful if it can fail: these check that it does, and why. */
const seen = (name: string) => recordedEvent(`tally-${name}`, 'test.Seen', { name });
const forgotten = (name: string) => recordedEvent(`tally-${name}`, 'test.Forgotten', { name });

/** Counts deliveries per name: deliberately not idempotent. */
const tally: Projection = {
  name: 'test.tally.v1',
  streamPrefixes: ['tally-'],
  collections: ['tallies'],
  async handle(event, context) {
    const { name } = event.data as { name: string };
    if (event.type === 'test.Forgotten') return context.delete('tallies', name);
    const current = await context.get<{ id: string; count: number }>('tallies', name);
    context.upsert('tallies', { id: name, count: (current?.count ?? 0) + 1 });
    if (name === 'stray') context.upsert('elsewhere', { id: name });
  },
};
const spec = projectionSpec(tally);

describe('projectionSpec', () => {
  it('passes on the expected documents and returns them', async () => {
    const documents = await spec.given([seen('a'), seen('b'), seen('a')]).thenDocuments({ tallies: [{ id: 'a', count: 2 }, { id: 'b', count: 1 }] });
    expect(documents).toEqual({ tallies: [{ id: 'a', count: 2 }, { id: 'b', count: 1 }] });
  });

  it('fails on other documents, on missing ones and on extra ones', async () => {
    await expect(spec.given([seen('a')]).thenDocuments({ tallies: [{ id: 'a', count: 2 }] })).rejects.toThrow();
    await expect(spec.given([seen('a')]).thenDocuments({ tallies: [] })).rejects.toThrow();
    await expect(spec.given([seen('a')]).thenDocuments({})).rejects.toThrow();
  });

  it('checks collections the projection writes to without owning them', async () => {
    await expect(spec.given([seen('stray')]).thenDocuments({ tallies: [{ id: 'stray', count: 1 }] })).rejects.toThrow();
    await spec.given([seen('stray')]).thenDocuments({ tallies: [{ id: 'stray', count: 1 }], elsewhere: [{ id: 'stray' }] });
    await expect(spec.given([]).thenDocuments({ nowhere: [] })).rejects.toThrow(/neither owns nor wrote/);
  });

  it('accepts asymmetric matchers for documents', async () => {
    await spec.given([seen('a')]).thenDocuments({ tallies: [expect.objectContaining({ id: 'a' })] });
  });

  it('delivers `when` events after the given ones', async () => {
    await spec.given([seen('a')]).when([seen('a'), forgotten('b')]).thenDocuments({ tallies: [{ id: 'a', count: 2 }] });
    await spec.given([seen('a'), seen('b')]).when([forgotten('a')]).thenDocuments({ tallies: [{ id: 'b', count: 1 }] });
  });

  it('lets reads see earlier writes of the same batch', async () => {
    await spec.given([seen('a'), seen('a'), seen('a')], { oneBatch: true }).thenDocuments({ tallies: [{ id: 'a', count: 3 }] });
  });

  it('catches a projection that is not idempotent under redelivery and replay', async () => {
    await expect(spec.given([seen('a')]).whenRedelivered([seen('a')]).thenUnchanged()).rejects.toThrow();
    await expect(spec.given([seen('a'), seen('b')]).whenReplayed().thenUnchanged()).rejects.toThrow();
    await expect(spec.given([seen('a'), seen('b')]).whenReplayed({ oneBatch: true }).thenUnchanged()).rejects.toThrow();
  });

  it('passes thenUnchanged when a delivery changes nothing', async () => {
    await spec.given([seen('a')]).when([forgotten('z')]).thenUnchanged();
  });

  it('refuses to redeliver an event that was never delivered', () => {
    expect(() => spec.given([seen('a')]).whenRedelivered([seen('b')])).toThrow();
  });
});

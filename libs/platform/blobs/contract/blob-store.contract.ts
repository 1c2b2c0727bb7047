/**
 * The behaviour every BlobStore adapter promises (ARCHITECTURE §3.4). Each test opens a fresh
 * fixture (its own directory, or its own GridFS bucket), so tests never see each other's blobs.
 */
import { randomBytes } from 'node:crypto';
import type { BlobMeta, BlobStore } from '@lore/platform/blobs/port';
import { useFreshFixture } from '@lore/platform/testing';

export interface BlobStoreFixture {
  readonly store: BlobStore;
  /** Another store over the same storage, as after a restart. */
  reopen(): Promise<BlobStore>;
  /** Whether any byte the adapter controls (files, chunk documents) still holds `marker`. */
  holdsBytes(marker: Buffer): Promise<boolean>;
  cleanup(): Promise<void>;
}

export type BlobStoreFactory = () => Promise<BlobStoreFixture>;

const meta = (overrides: Partial<BlobMeta> = {}): BlobMeta => ({
  contentType: 'application/pdf',
  name: 'plan.pdf',
  workspaceId: 'ws_1',
  createdAt: new Date('2026-03-01T10:00:00.123Z'),
  ...overrides,
});

/** Bytes no other test writes, with a marker to search the storage for. */
function fileWith(marker: Buffer, size = 1000): Buffer {
  return Buffer.concat([randomBytes(size), marker, randomBytes(size)]);
}

const newMarker = (): Buffer => Buffer.from(`marker-${randomBytes(12).toString('hex')}`, 'latin1');

export function describeBlobStoreContract(name: string, factory: BlobStoreFactory): void {
  describe(`${name}: BlobStore contract`, () => {
    const fixture = useFreshFixture(factory, 'blob store');
    const store = (): BlobStore => fixture.current().store;

    it('gives back the bytes and the meta that were put', async () => {
      const bytes = fileWith(newMarker());
      const given = meta({ name: 'Bericht über Q3 — final (2).pdf', contentType: 'text/plain; charset=utf-8', workspaceId: 'ws_ä' });
      await store().put('cnt_1', bytes, given);
      const blob = await store().get('cnt_1');
      expect(blob?.bytes.equals(bytes)).toBe(true);
      expect(blob?.meta).toEqual(given);
    });

    it('keeps empty bytes and a blob larger than one storage chunk (3 MB)', async () => {
      const large = randomBytes(3 * 1024 * 1024 + 17);
      await store().put('empty', Buffer.alloc(0), meta());
      await store().put('large', large, meta());
      expect((await store().get('empty'))?.bytes.length).toBe(0);
      expect((await store().get('large'))?.bytes.equals(large)).toBe(true);
    });

    it('answers null for an id that holds nothing', async () => {
      expect(await store().get('cnt_never')).toBeNull();
      expect(await store().has('cnt_never')).toBe(false);
    });

    it('takes a second put of an id as done: the first blob stays, and the put succeeds', async () => {
      const first = fileWith(newMarker());
      await store().put('cnt_1', first, meta());
      await store().put('cnt_1', randomBytes(50), meta({ name: 'other.txt' }));
      const blob = await store().get('cnt_1');
      expect(blob?.bytes.equals(first)).toBe(true);
      expect(blob?.meta.name).toBe('plan.pdf');
    });

    it('deletes a blob so that no byte of it is left in what the store holds, and deleting again succeeds', async () => {
      const marker = newMarker();
      await store().put('cnt_gone', fileWith(marker), meta());
      await store().put('cnt_kept', fileWith(Buffer.from('kept')), meta());
      expect(await fixture.current().holdsBytes(marker)).toBe(true); // the probe finds what is there
      await store().delete('cnt_gone');
      expect(await store().get('cnt_gone')).toBeNull();
      expect(await store().has('cnt_gone')).toBe(false);
      expect(await fixture.current().holdsBytes(marker)).toBe(false);
      await store().delete('cnt_gone');
      await store().delete('cnt_never');
      expect(await store().get('cnt_kept')).not.toBeNull();
      expect(await store().has('cnt_kept')).toBe(true);
    });

    it('lets an id be put again after its delete', async () => {
      await store().put('cnt_1', Buffer.from('one'), meta());
      await store().delete('cnt_1');
      await store().put('cnt_1', Buffer.from('two'), meta());
      expect((await store().get('cnt_1'))?.bytes.toString()).toBe('two');
    });

    it('lists the blobs made before a time, oldest first, a batch at a time', async () => {
      const at = (day: number): Date => new Date(Date.UTC(2025, 0, day, 12));
      await store().put('cnt_c', Buffer.from('c'), meta({ createdAt: at(3) }));
      await store().put('cnt_a', Buffer.from('a'), meta({ createdAt: at(1) }));
      await store().put('cnt_b', Buffer.from('b'), meta({ createdAt: at(2), workspaceId: 'ws_2' }));
      await store().put('cnt_d', Buffer.from('d'), meta({ createdAt: at(4) }));
      expect(await store().idsCreatedBefore(at(4), 10)).toEqual(['cnt_a', 'cnt_b', 'cnt_c']);
      expect(await store().idsCreatedBefore(at(4), 2)).toEqual(['cnt_a', 'cnt_b']);
      expect(await store().idsCreatedBefore(at(1), 10)).toEqual([]);
      await store().delete('cnt_a');
      expect(await store().idsCreatedBefore(at(4), 2)).toEqual(['cnt_b', 'cnt_c']);
    });

    it('stores concurrent puts of different ids, each whole', async () => {
      const files = Array.from({ length: 24 }, (_, i) => ({ id: `cnt_${i}`, bytes: randomBytes(20_000 + i * 997) }));
      await Promise.all(files.map(({ id, bytes }) => store().put(id, bytes, meta({ name: `${id}.bin` }))));
      for (const { id, bytes } of files) {
        const blob = await store().get(id);
        expect(blob?.bytes.equals(bytes)).toBe(true);
        expect(blob?.meta.name).toBe(`${id}.bin`);
      }
    });

    it('keeps blobs across a restart', async () => {
      const bytes = fileWith(newMarker());
      await store().put('cnt_durable', bytes, meta());
      const reopened = await fixture.current().reopen();
      try {
        expect((await reopened.get('cnt_durable'))?.bytes.equals(bytes)).toBe(true);
      } finally {
        await reopened.close();
      }
    });

    it('refuses ids that are not ids (a path, empty, too long) on every operation', async () => {
      for (const id of ['../escape', 'a/b', '', 'x'.repeat(129), 'dot.ted']) {
        await expect(store().put(id, Buffer.from('x'), meta())).rejects.toThrow(/invalid blob id/);
        await expect(store().get(id)).rejects.toThrow(/invalid blob id/);
        await expect(store().delete(id)).rejects.toThrow(/invalid blob id/);
        await expect(store().has(id)).rejects.toThrow(/invalid blob id/);
      }
    });
  });
}

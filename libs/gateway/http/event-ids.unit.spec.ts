import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { EventIds } from './event-ids';

describe('EventIds', () => {
  const secret = randomBytes(32);
  const ids = new EventIds(secret);

  it('gives back the position for the workspace it was made for, from any gateway with the same secret', () => {
    const id = ids.encode('acme', 1234567);
    expect(id).toMatch(/^[A-Za-z0-9_-]{48}$/);
    expect(ids.decode('acme', id)).toBe(1234567);
    expect(new EventIds(secret).decode('acme', id)).toBe(1234567);
  });

  it('seals a page of positions at once into ids each of which opens alone, to its own position', () => {
    const positions = [5, 6, 6, 2 ** 40 + 7, 1_000_000];
    const page = ids.encodeMany('acme', positions);
    expect(page).toHaveLength(positions.length);
    for (const id of page) expect(id).toMatch(/^[A-Za-z0-9_-]{48}$/);
    expect(page.map((id) => ids.decode('acme', id))).toEqual(positions);
    expect(page.map((id) => ids.decode('globex', id))).toEqual(positions.map(() => null));
    // Each id its own randomness: the same position twice in a page gives two ids.
    expect(page[1]).not.toBe(page[2]);
    expect(ids.encodeMany('acme', [])).toEqual([]);
  });

  it('tells nothing: two ids of one position differ, and neither holds the number', () => {
    // Nine digits: a random id holds them by chance about once in 10^15 (two digits, as this
    // test had, about once in a hundred runs).
    const a = ids.encode('acme', 918_273_645);
    const b = ids.encode('acme', 918_273_645);
    expect(a).not.toBe(b);
    expect(a).not.toContain('918273645');
  });

  it('refuses another workspace\'s id, an altered one, one made with another secret, and anything else', () => {
    const id = ids.encode('acme', 7);
    expect(ids.decode('globex', id)).toBeNull();
    const flipped = Buffer.from(id, 'base64url');
    flipped[14] = (flipped[14] ?? 0) ^ 1;
    expect(ids.decode('acme', flipped.toString('base64url'))).toBeNull();
    expect(new EventIds(randomBytes(32)).decode('acme', id)).toBeNull();
    for (const other of ['7', '', 'x'.repeat(48), `${id}A`]) expect(ids.decode('acme', other)).toBeNull();
  });

  it('round-trips every position a number holds exactly', () => {
    for (const position of [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 12345, Number.MAX_SAFE_INTEGER]) expect(ids.decode('acme', ids.encode('acme', position))).toBe(position);
  });

  it('refuses an id whose sealed half is swapped with another id\'s (the tag binds the pair)', () => {
    const [a, b] = [Buffer.from(ids.encode('acme', 1), 'base64url'), Buffer.from(ids.encode('acme', 2), 'base64url')];
    const mixed = Buffer.concat([b.subarray(0, 16), a.subarray(16)]).toString('base64url');
    expect(ids.decode('acme', mixed)).toBeNull();
  });

  it('still opens an id of the first format (AES-256-GCM) handed out before, for its workspace only', () => {
    // v1 as it was made: HKDF key, 12-byte random nonce, 8-byte position, 16-byte tag, the workspace as AAD.
    const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'lore/events/sse-id/v1', 32));
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
    cipher.setAAD(Buffer.from('acme', 'utf8'));
    const plain = Buffer.alloc(8);
    plain.writeBigUInt64BE(987654321n);
    const v1 = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]).toString('base64url');
    expect(ids.decode('acme', v1)).toBe(987654321);
    expect(ids.decode('globex', v1)).toBeNull();
  });
});

import { randomBytes } from 'node:crypto';
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

  it('tells nothing: two ids of one position differ, and neither holds the number', () => {
    const a = ids.encode('acme', 42);
    const b = ids.encode('acme', 42);
    expect(a).not.toBe(b);
    expect(a).not.toContain('42');
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
});

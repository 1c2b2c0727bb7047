import { randomBytes } from 'node:crypto';
import { seal, unseal } from './aead';

const key = randomBytes(32);
const AD = 'memory-mem_1';

/** Replaces one of the four dot-separated parts of a sealed value. */
function withPart(sealed: string, index: number, change: (bytes: Buffer) => Buffer): string {
  const parts = sealed.split('.');
  parts[index] = change(Buffer.from(parts[index] ?? '', 'base64url')).toString('base64url');
  return parts.join('.');
}

function flipFirstBit(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  copy[0] = (copy[0] ?? 0) ^ 0x01;
  return copy;
}

describe('seal / unseal (AES-256-GCM)', () => {
  it('round-trips a string', () => {
    const text = 'the user prefers tea — 日本語 too';
    expect(unseal(key, seal(key, text, AD), AD).toString('utf8')).toBe(text);
  });

  it('round-trips binary data and the empty plaintext', () => {
    const bytes = randomBytes(1000);
    expect(unseal(key, seal(key, bytes, AD), AD).equals(bytes)).toBe(true);
    expect(unseal(key, seal(key, '', AD), AD).length).toBe(0);
  });

  it('produces a versioned four-part value that does not contain the plaintext', () => {
    const text = 'secret memory text';
    const sealed = seal(key, text, AD);
    expect(sealed.split('.')).toHaveLength(4);
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(sealed).not.toContain(text);
    expect(sealed).not.toContain(Buffer.from(text).toString('base64url'));
  });

  it('uses a fresh IV each time: sealing the same text twice gives different values', () => {
    const a = seal(key, 'same', AD);
    const b = seal(key, 'same', AD);
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
  });

  it.each([
    ['IV', 1],
    ['ciphertext', 2],
    ['tag', 3],
  ])('detects a flipped bit in the %s', (_part, index) => {
    const sealed = seal(key, 'do not alter me', AD);
    expect(() => unseal(key, withPart(sealed, index, flipFirstBit), AD)).toThrow();
  });

  it('detects a truncated ciphertext', () => {
    const sealed = seal(key, 'do not alter me', AD);
    expect(() => unseal(key, withPart(sealed, 2, (b) => b.subarray(0, b.length - 1)), AD)).toThrow();
  });

  it('rejects a tag shortened to 4 bytes (a short tag would make forgery feasible)', () => {
    const sealed = seal(key, 'do not alter me', AD);
    expect(() => unseal(key, withPart(sealed, 3, (b) => b.subarray(0, 4)), AD)).toThrow();
  });

  it('rejects an empty tag', () => {
    const sealed = seal(key, 'do not alter me', AD);
    expect(() => unseal(key, withPart(sealed, 3, () => Buffer.alloc(0)), AD)).toThrow();
  });

  it('fails with other associated data: a ciphertext cannot move to another aggregate', () => {
    const sealed = seal(key, 'bound to mem_1', AD);
    expect(() => unseal(key, sealed, 'memory-mem_2')).toThrow();
    expect(() => unseal(key, sealed, '')).toThrow();
  });

  it('fails with another key', () => {
    const sealed = seal(key, 'for one key only', AD);
    expect(() => unseal(randomBytes(32), sealed, AD)).toThrow();
  });

  it.each(['', 'v1', 'v1.a.b', 'v2.AAAA.AAAA.AAAA', 'garbage'])('refuses the malformed value %j', (value) => {
    expect(() => unseal(key, value, AD)).toThrow();
  });

  it('refuses a value sealed under another format version, even with a valid body', () => {
    const sealed = seal(key, 'x', AD);
    expect(() => unseal(key, sealed.replace(/^v1\./, 'v2.'), AD)).toThrow(/unsupported/);
  });
});

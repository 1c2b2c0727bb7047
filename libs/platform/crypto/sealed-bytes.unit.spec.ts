import { randomBytes } from 'node:crypto';
import { openBytes, sealBytes, sealedBytesKeyId } from './sealed-bytes';

const dataKey = { keyId: 'dk_01test', key: randomBytes(32) };
const AD = 'cnt_1';
const file = Buffer.from('%PDF-1.7 the quarterly plan: expand into Lisbon', 'utf8');

function flipByte(sealed: Buffer, at: number): Buffer {
  const copy = Buffer.from(sealed);
  copy[at] = (copy[at] ?? 0) ^ 0x01;
  return copy;
}

describe('sealBytes / openBytes (AES-256-GCM over bytes)', () => {
  it('round-trips bytes, binary and empty ones included', () => {
    for (const bytes of [file, randomBytes(100_000), Buffer.alloc(0)]) {
      expect(openBytes(dataKey.key, sealBytes(dataKey, bytes, AD), AD).equals(bytes)).toBe(true);
    }
  });

  it('holds no byte string of the plaintext and names its key', () => {
    const sealed = sealBytes(dataKey, file, AD);
    expect(sealed.includes(Buffer.from('Lisbon'))).toBe(false);
    expect(sealedBytesKeyId(sealed)).toBe('dk_01test');
    // binary, not base64: the overhead is the header, the IV and the tag only
    expect(sealed.length).toBe(file.length + 2 + 'dk_01test'.length + 12 + 16);
  });

  it('uses a fresh IV each time', () => {
    expect(sealBytes(dataKey, file, AD).equals(sealBytes(dataKey, file, AD))).toBe(false);
  });

  it('detects a flipped bit anywhere after the key id: IV, ciphertext, tag', () => {
    const sealed = sealBytes(dataKey, file, AD);
    const headerBytes = 2 + 'dk_01test'.length;
    for (const at of [headerBytes, headerBytes + 12, headerBytes + 20, sealed.length - 1]) {
      expect(() => openBytes(dataKey.key, flipByte(sealed, at), AD)).toThrow();
    }
  });

  it('detects truncation, and refuses what is too short to be sealed bytes or has another format', () => {
    const sealed = sealBytes(dataKey, file, AD);
    expect(() => openBytes(dataKey.key, sealed.subarray(0, sealed.length - 1), AD)).toThrow();
    expect(() => openBytes(dataKey.key, Buffer.alloc(10), AD)).toThrow(/unsupported/);
    expect(() => openBytes(dataKey.key, flipByte(sealed, 0), AD)).toThrow(/unsupported/);
  });

  it('fails with other associated data: sealed bytes cannot move to another id', () => {
    const sealed = sealBytes(dataKey, file, AD);
    expect(() => openBytes(dataKey.key, sealed, 'cnt_2')).toThrow();
    expect(() => openBytes(dataKey.key, sealed, '')).toThrow();
  });

  it('fails with another key', () => {
    expect(() => openBytes(randomBytes(32), sealBytes(dataKey, file, AD), AD)).toThrow();
  });

  it('refuses a key id that does not fit its length byte', () => {
    expect(() => sealBytes({ keyId: 'k'.repeat(256), key: dataKey.key }, file, AD)).toThrow(/key id/);
    expect(() => sealBytes({ keyId: '', key: dataKey.key }, file, AD)).toThrow(/key id/);
  });
});

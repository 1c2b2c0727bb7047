import { randomBytes } from 'node:crypto';
import { MASTER_KEY_BYTES, parseMasterKey } from './master-key';

describe('parseMasterKey', () => {
  const bytes = randomBytes(MASTER_KEY_BYTES);

  it('is 32 bytes', () => {
    expect(MASTER_KEY_BYTES).toBe(32);
  });

  it('reads 64 hex digits, in either case', () => {
    expect(parseMasterKey(bytes.toString('hex')).equals(bytes)).toBe(true);
    expect(parseMasterKey(bytes.toString('hex').toUpperCase()).equals(bytes)).toBe(true);
  });

  it('reads base64', () => {
    expect(parseMasterKey(bytes.toString('base64')).equals(bytes)).toBe(true);
  });

  it('reads base64 without padding', () => {
    expect(parseMasterKey(bytes.toString('base64').replace(/=+$/, '')).equals(bytes)).toBe(true);
  });

  it.each([
    ['16 bytes of hex', randomBytes(16).toString('hex')],
    ['31 bytes of hex', randomBytes(31).toString('hex')],
    ['33 bytes of hex', randomBytes(33).toString('hex')],
    ['16 bytes of base64', randomBytes(16).toString('base64')],
    ['48 bytes of base64', randomBytes(48).toString('base64')],
    ['a passphrase', 'correct horse battery staple'],
    ['an empty string', ''],
  ])('refuses %s, saying how long a key must be', (_what, text) => {
    expect(() => parseMasterKey(text)).toThrow(/must be 32 bytes/);
  });

  it('names the source in the error and never echoes the value', () => {
    const text = randomBytes(16).toString('hex');
    let message = '';
    try {
      parseMasterKey(text, '/data/master.key');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('/data/master.key');
    expect(message).not.toContain(text);
    expect(() => parseMasterKey(text)).toThrow(/LORE_MASTER_KEY/);
  });
});

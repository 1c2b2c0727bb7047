import { createHmac, randomBytes } from 'node:crypto';
import { KEY_CHECK_ID, masterVersionOf, opensKeyCheck, sealKeyCheck, sealVerifierKeys, unwrapDataKey, verifierKeys, wrapDataKey } from './keyring';

describe('keyring format', () => {
  const master = randomBytes(32);

  it('counts a doc without master_version as version 1', () => {
    expect(masterVersionOf({})).toBe(1);
    expect(masterVersionOf({ master_version: 4 })).toBe(4);
  });

  it('proves a master key by its check, never by garbage', () => {
    const check = sealKeyCheck(master);
    expect(opensKeyCheck(master, check)).toBe(true);
    expect(opensKeyCheck(randomBytes(32), check)).toBe(false);
    expect(opensKeyCheck(master, 'not sealed')).toBe(false);
    expect(opensKeyCheck(master, wrapDataKey(master, KEY_CHECK_ID, randomBytes(32)))).toBe(false);
  });

  it('binds a wrapped data key to its id', () => {
    const key = randomBytes(32);
    const wrapped = wrapDataKey(master, 'dk_a', key);
    expect(unwrapDataKey(master, 'dk_a', wrapped).equals(key)).toBe(true);
    expect(() => unwrapDataKey(master, 'dk_b', wrapped)).toThrow();
  });

  it('derives verifier keys from the master key until a rotation carries them, then uses the carried ones', () => {
    const derived = verifierKeys(master, { id: KEY_CHECK_ID, wrapped: sealKeyCheck(master) }).get('api-key-secret');
    expect(derived?.equals(createHmac('sha256', master).update('lore/api-key-secret').digest())).toBe(true);
    const next = randomBytes(32);
    const carried = verifierKeys(next, { id: KEY_CHECK_ID, wrapped: sealKeyCheck(next), verifier_keys: sealVerifierKeys(next, verifierKeys(master, { id: KEY_CHECK_ID, wrapped: '' })) });
    expect(carried.get('api-key-secret')?.equals(derived ?? Buffer.alloc(0))).toBe(true);
    // Sealed by the new key: the old one cannot open them.
    expect(() => verifierKeys(master, { id: KEY_CHECK_ID, wrapped: '', verifier_keys: sealVerifierKeys(next, carried) })).toThrow();
  });
});

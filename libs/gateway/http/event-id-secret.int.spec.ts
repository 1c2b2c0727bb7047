import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventIdSecretGeneratedMessage, loadEventIdSecret } from './event-id-secret';

describe('loadEventIdSecret (LORE_EVENT_ID_SECRET, else LORE_MASTER_KEY, else DATA_DIR/event-id.key)', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lore-event-id-secret-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('uses LORE_EVENT_ID_SECRET (base64 or hex, 32 bytes or more) over the master key, and writes nothing', () => {
    const secret = randomBytes(48);
    const dataDir = join(root, 'data');
    const masterKey = randomBytes(32).toString('base64');
    expect(loadEventIdSecret({ secret: secret.toString('base64'), masterKey, dataDir }).equals(secret)).toBe(true);
    expect(loadEventIdSecret({ secret: secret.toString('hex'), masterKey, dataDir }).equals(secret)).toBe(true);
    expect(loadEventIdSecret({ secret: secret.toString('base64url'), masterKey: undefined, dataDir }).equals(secret)).toBe(true);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses a secret shorter than 32 bytes or not base64/hex, naming the variable', () => {
    const dataDir = join(root, 'data');
    expect(() => loadEventIdSecret({ secret: randomBytes(16).toString('base64'), masterKey: undefined, dataDir })).toThrow(/LORE_EVENT_ID_SECRET must be at least 32 bytes.*got 16 bytes/);
    expect(() => loadEventIdSecret({ secret: 'not base64 at all, but long enough to be 32 bytes!!', masterKey: undefined, dataDir })).toThrow(/LORE_EVENT_ID_SECRET/);
  });

  it('falls back to LORE_MASTER_KEY, read as the services read it, and writes nothing', () => {
    const key = randomBytes(32);
    const dataDir = join(root, 'data');
    expect(loadEventIdSecret({ secret: undefined, masterKey: key.toString('base64'), dataDir }).equals(key)).toBe(true);
    expect(() => loadEventIdSecret({ secret: undefined, masterKey: 'short', dataDir })).toThrow(/LORE_MASTER_KEY must be 32 bytes/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('otherwise generates event-id.key once (0600, no master.key) and reuses it, telling the caller only when it generated', () => {
    const dataDir = join(root, 'nested', 'gateway');
    const generated: string[] = [];
    const first = loadEventIdSecret({ secret: undefined, masterKey: undefined, dataDir, onGenerated: (file) => generated.push(file) });
    const again = loadEventIdSecret({ secret: undefined, masterKey: undefined, dataDir, onGenerated: (file) => generated.push(file) });
    expect(again.equals(first)).toBe(true);
    const file = join(dataDir, 'event-id.key');
    expect(generated).toEqual([file]);
    expect(readdirSync(dataDir)).toEqual(['event-id.key']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first)).toBe(true);
    // Another gateway's directory gets another secret: the reason several gateways must share one.
    expect(loadEventIdSecret({ secret: undefined, masterKey: undefined, dataDir: join(root, 'other') }).equals(first)).toBe(false);
  });

  it('logs what the generated secret is for, not a data-loss warning', () => {
    const message = eventIdSecretGeneratedMessage('/data/gateway/event-id.key');
    expect(message).toMatch(/SSE event ids/);
    expect(message).toMatch(/set LORE_EVENT_ID_SECRET \(the same on each\)/);
    expect(message).not.toMatch(/back it up/);
  });
});

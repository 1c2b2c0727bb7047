import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMasterKey, masterKeyGeneratedMessage } from './master-key';

describe('loadMasterKey (DATA_DIR)', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lore-master-key-'));
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('uses the configured value and writes nothing', () => {
    const bytes = randomBytes(32);
    const dataDir = join(root, 'data');
    expect(loadMasterKey({ value: bytes.toString('hex'), dataDir }).equals(bytes)).toBe(true);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('generates a 32-byte key into a new DATA_DIR, readable by its owner only', () => {
    const dataDir = join(root, 'nested', 'data');
    const key = loadMasterKey({ value: undefined, dataDir });
    expect(key).toHaveLength(32);
    const file = join(dataDir, 'master.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(key)).toBe(true);
    // No temporary file is left behind.
    expect(readdirSync(dataDir)).toEqual(['master.key']);
  });

  it('tells the caller when it generated a key, and only then', () => {
    const dataDir = join(root, 'data');
    const generated: string[] = [];
    const onGenerated = (file: string): void => {
      generated.push(file);
    };
    loadMasterKey({ value: undefined, dataDir, onGenerated });
    expect(generated).toEqual([join(dataDir, 'master.key')]);
    loadMasterKey({ value: undefined, dataDir, onGenerated });
    loadMasterKey({ value: randomBytes(32).toString('base64'), dataDir: join(root, 'other'), onGenerated });
    expect(generated).toHaveLength(1);
    expect(masterKeyGeneratedMessage(join(dataDir, 'master.key'))).toMatch(/generated a new master key at .*master\.key; back it up/);
  });

  it('reuses the generated key on the next load', () => {
    const dataDir = join(root, 'data');
    const first = loadMasterKey({ value: undefined, dataDir });
    const second = loadMasterKey({ value: undefined, dataDir });
    expect(second.equals(first)).toBe(true);
  });

  it('gives different installations different keys', () => {
    const a = loadMasterKey({ value: undefined, dataDir: join(root, 'a') });
    const b = loadMasterKey({ value: undefined, dataDir: join(root, 'b') });
    expect(a.equals(b)).toBe(false);
  });

  it('prefers the configured value over the file', () => {
    const dataDir = join(root, 'data');
    loadMasterKey({ value: undefined, dataDir });
    const configured = randomBytes(32);
    expect(loadMasterKey({ value: configured.toString('base64'), dataDir }).equals(configured)).toBe(true);
  });

  it('refuses a damaged key file, naming it, rather than generating a new key', () => {
    const dataDir = join(root, 'data');
    loadMasterKey({ value: undefined, dataDir });
    const file = join(dataDir, 'master.key');
    writeFileSync(file, 'short\n');
    expect(() => loadMasterKey({ value: undefined, dataDir })).toThrow(file);
    expect(readFileSync(file, 'utf8')).toBe('short\n');
  });
});

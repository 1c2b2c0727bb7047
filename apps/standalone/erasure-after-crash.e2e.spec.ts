import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, mintJwt, type LoreUnderTest } from '@lore/gateway/e2e';
import { loadConfig } from '@lore/platform/runtime';
import { openContextStores } from '@lore/platform/host';
import { sealedKeyId } from '@lore/platform/crypto';
import { memoryStreamId } from '@lore/memory/domain';
import { filesHolding } from '@lore/platform/testing';
import { startStandalone } from './bootstrap';

const JWT_SECRET = 'erasure-e2e-secret';

/**
 * A process killed between appending `memory.MemoryDeleted` and shredding the memory's key
 * leaves exactly this on disk: the deletion event in the log, the sealed events, and the
 * data key in the keyring. The test writes that state with the stores themselves (while
 * Lore is stopped), proves the memory is still recoverable from the files, starts Lore
 * again and expects the erasure to have completed: no key, no stream, no bytes.
 */
describe('permanent deletion survives a crash between the deletion event and the shredding', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-erasure-'));
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '' };

  it.each([
    ['before the key is shredded', false],
    ['after the key is shredded, before the stream is deleted', true],
  ])('completes the erasure on restart when the crash came %s', async (_when, keyShredded) => {
    const marker = `MARKER-${randomUUID()}`;
    const token = await mintJwt(JWT_SECRET, { sub: 'crash-user', workspace_id: 'crash-ws' });
    let running = await startStandalone(env);
    let lore: LoreUnderTest = { url: running.url, jwtSecret: JWT_SECRET };
    const created = await call(lore, 'POST', '/api/v1/memories', { token, body: { memory: `remember ${marker}`, topics: [marker] } });
    expect(created.status).toBe(201);
    const memoryId: string = created.body.memory_id;
    expect((await call(lore, 'POST', `/api/v1/memories/${memoryId}/replace`, { token, body: { memory: `still ${marker}` } })).status).toBe(200);
    await running.app.close();

    // The crash: the deletion is recorded, nothing of the erasure has happened (or only the shredding).
    const config = loadConfig(env);
    let stores = await openContextStores(config, 'memory');
    const stream = memoryStreamId(memoryId);
    const recorded = await stores.events.readStream(stream);
    const sealed = (recorded[0]?.data as { content: string }).content;
    const keyId = sealedKeyId(sealed);
    await stores.events.append(
      stream,
      [{ id: randomUUID(), type: 'memory.MemoryDeleted', data: { memoryId, workspaceId: 'crash-ws', userId: 'crash-user', deletedAt: new Date().toISOString() } }],
      recorded.length - 1,
    );
    if (keyShredded) await stores.keyring.shred([keyId]);
    else expect(await stores.keyring.get(keyId)).not.toBeNull(); // recoverable from the files alone, until erased
    await stores.close();
    expect(filesHolding(dataDir, keyId).length).toBeGreaterThan(0);

    running = await startStandalone(env);
    lore = { url: running.url, jwtSecret: JWT_SECRET };
    await untilReady(lore);
    expect((await call(lore, 'GET', `/api/v1/memories/${memoryId}`, { token })).status).toBe(404);
    await running.app.close();

    stores = await openContextStores(config, 'memory');
    expect(await stores.keyring.get(keyId)).toBeNull();
    expect(await stores.events.readStream(stream)).toEqual([]);
    await stores.close();
    // No file holds the key, the ciphertext or the text any more.
    const ciphertext = sealed.split('.')[2] ?? '';
    expect(ciphertext.length).toBeGreaterThan(16);
    for (const needle of [keyId, ciphertext, marker]) expect({ needle, files: filesHolding(dataDir, needle) }).toEqual({ needle, files: [] });
  });

  it('answers a repeated DELETE of a memory whose erasure is pending with 200, and erases it', async () => {
    const token = await mintJwt(JWT_SECRET, { sub: 'again-user', workspace_id: 'again-ws' });
    let running = await startStandalone(env);
    const created = await call({ url: running.url, jwtSecret: JWT_SECRET }, 'POST', '/api/v1/memories', { token, body: { memory: 'to be deleted twice' } });
    const memoryId: string = created.body.memory_id;
    await running.app.close();
    const stores = await openContextStores(loadConfig(env), 'memory');
    const stream = memoryStreamId(memoryId);
    const recorded = await stores.events.readStream(stream);
    const keyId = sealedKeyId((recorded[0]?.data as { content: string }).content);
    await stores.events.append(stream, [{ id: randomUUID(), type: 'memory.MemoryDeleted', data: { memoryId, workspaceId: 'again-ws', userId: 'again-user', deletedAt: new Date().toISOString() } }], 0);
    await stores.close();

    running = await startStandalone(env);
    const lore = { url: running.url, jwtSecret: JWT_SECRET };
    const again = await call(lore, 'DELETE', `/api/v1/memories/${memoryId}`, { token });
    // Pending (200, erased before the answer) or already erased at start-up (404): never a memory left behind.
    expect([200, 404]).toContain(again.status);
    await untilReady(lore);
    await running.app.close();
    expect(filesHolding(dataDir, keyId)).toEqual([]);
  });
});

async function untilReady(lore: LoreUnderTest): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await call(lore, 'GET', '/ready')).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('Lore did not become ready');
}

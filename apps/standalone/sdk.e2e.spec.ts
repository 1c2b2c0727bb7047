import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describeSdkConversations, describeSdkKnowledge, describeSdkPlatform, describeMcpTools, httpTransport, jwtFor, mcpClient, SDK_TEST_ENV, type LoreUnderTest } from '@lore/client/e2e';
import { modelsDirForTests } from '@lore/platform/embeddings/contract';
import { buildDistOnce } from '@lore/platform/testing';
import { startStandalone } from './bootstrap';

const JWT_SECRET = 'sdk-standalone-secret';
const ROOT = join(__dirname, '..', '..');

/** The TypeScript SDK and the MCP server (Streamable HTTP on the gateway, and stdio) against a standalone Lore. */
describe('TypeScript SDK and MCP server against standalone Lore', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-sdk-'));
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '', MODELS_DIR: modelsDirForTests(), ...SDK_TEST_ENV };
  let running: Awaited<ReturnType<typeof startStandalone>>;
  const lore: LoreUnderTest = { url: '', jwtSecret: JWT_SECRET };

  beforeAll(async () => {
    running = await startStandalone(env);
    Object.assign(lore, { url: running.url });
    // dist/mcp.js (`npm run mcp`) and dist/example-typescript.js (`npm run example:typescript`).
    buildDistOnce();
  }, 60_000);
  afterAll(async () => {
    await running.app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describeSdkKnowledge(() => lore);
  describeSdkConversations(() => lore);
  describeSdkPlatform(() => lore);
  describeMcpTools('Streamable HTTP at /mcp', () => lore, (l, key) => mcpClient(httpTransport(l, key)));
  describeMcpTools('stdio, npm run mcp', () => lore, (l, key) =>
    mcpClient(new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist/mcp.js')], env: { PATH: process.env['PATH'] ?? '', LORE_BASE_URL: l.url, LORE_API_KEY: key }, stderr: 'inherit' })),
  );

  it('npm run mcp still reads LORE_URL, the base URL\'s older name, and says to rename it', async () => {
    const key = await jwtFor(lore, 'mcp-old-name', 'mcp-old-name-ws');
    const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, 'dist/mcp.js')], env: { PATH: process.env['PATH'] ?? '', LORE_URL: lore.url, LORE_API_KEY: key }, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = await mcpClient(transport);
    try {
      const listed = await client.callTool({ name: 'list_collections', arguments: {} });
      expect(listed.isError).toBeFalsy();
      expect(stderr).toContain('LORE_URL is read as LORE_BASE_URL');
    } finally {
      await client.close();
    }
  });

  it('npm run mcp without LORE_API_KEY exits with code 2 and says what to set', async () => {
    const run = promisify(execFile)(process.execPath, [join(ROOT, 'dist/mcp.js')], { env: { PATH: process.env['PATH'] ?? '' }, timeout: 10_000 });
    await expect(run).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('set LORE_API_KEY') });
  });

  it('authenticates /mcp like every route: no credential is 401 with {detail}, a GET is 405', async () => {
    const anonymous = await fetch(`${lore.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ detail: expect.any(String) });
    const get = await fetch(`${lore.url}/mcp`);
    expect(get.status).toBe(405);
  });

  it('runs the TypeScript example as the README says: files uploaded, searched, a conversation context built', async () => {
    const token = await jwtFor(lore, 'example-user', 'example-ws');
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/example-typescript.js'], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', LORE_BASE_URL: lore.url, LORE_API_KEY: token }, timeout: 60_000 });
    for (const file of ['kettles.txt', 'storage.html', 'tea.md']) expect(stdout).toMatch(new RegExp(`processed ${file.replace('.', '\\.')}: [1-9]`));
    // The best passage for the water temperature comes from the tea or kettle notes, with both sub-scores.
    expect(stdout).toMatch(/\n\d\.\d{3} (tea\.md|kettles\.txt) \(vector \d\.\d{3}, keyword \d\.\d{3}\)/);
    expect(stdout).toMatch(/context: \d+ of 600 tokens, [1-9] passage/);
    expect(stdout).toContain('How hot should the water be for my green tea');
  }, 60_000);
});

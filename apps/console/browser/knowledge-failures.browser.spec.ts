import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seriousViolations, expectTextSoon } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';

/**
 * A content whose processing fails: its collection embeds with an OpenAI-compatible provider
 * that refuses every input, here a loopback stand-in answering as OpenAI's embeddings API does
 * for a bad request (HTTP 400 with `{"error": {"message", "type"}}`,
 * https://platform.openai.com/docs/guides/error-codes/api-errors).
 */
describe('console: knowledge, failed processing', () => {
  const env: NodeJS.ProcessEnv = { LORE_EGRESS_ALLOW: '127.0.0.1' };
  const provider = createServer((_request, response) => {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: 'This model cannot embed that input.', type: 'invalid_request_error', param: 'input', code: null } }));
  });
  // Registered before useConsole's: Lore starts with the stand-in's address in its environment.
  beforeAll(async () => {
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    env['EMBEDDING_OPENAI_BASE_URL'] = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise((resolve) => provider.close(resolve)));
  const lore = useConsole(env);

  it('shows a content turning failed live, with the reason Lore gives, and finds it by the status filter', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/knowledge');
    const collection = await workspace.lore.collections.create({ name: 'Remote model', embedding: { provider: 'openai-compatible' } });
    await page.goto(`${lore.url}/console/knowledge/${collection.id}`);
    await page.getByText('Processing status updates live (event stream).').waitFor();
    await page.getByLabel('Files to upload').setInputFiles({ name: 'tea.txt', mimeType: 'text/plain', buffer: Buffer.from('Steep the tea for three minutes.') });
    const row = page.getByRole('table', { name: 'Contents' }).getByRole('row').filter({ hasText: 'tea.txt' });
    await row.getByText('failed', { exact: true }).waitFor();
    await expectTextSoon(row.locator('.field-error'), /This model cannot embed that input/);
    await page.getByLabel('Status').selectOption('completed');
    await page.getByText('No content yet: upload files above.').waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await row.getByText('failed', { exact: true }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

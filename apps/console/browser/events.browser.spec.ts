import type { IncomingHttpHeaders } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { until } from '@lore/platform/testing';
import { tamperMemory } from '@lore/gateway/e2e';
import { checkPhoneLayout, screenshot, seriousViolations, expectTextSoon } from './page-checks';
import { signedInPage, useConsole } from './console-fixture';
import { useLoopbackServer } from './loopback-server';

/** Events and webhooks: the live tail, a webhook created, delivered, redelivered, disabled and enabled again. */
describe('console: events and webhooks', () => {
  // Deliveries go through the egress port (loopback allowed for the receiver) and are polled often.
  // DATA_DIR named here so the audit test can edit an event store file as an intruder would.
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-console-events-'));
  const lore = useConsole({ LORE_EGRESS_ALLOW: '127.0.0.1', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800', DATA_DIR: dataDir });
  // The webhook endpoint: records each POST's headers and answers 200.
  const received: IncomingHttpHeaders[] = [];
  const server = useLoopbackServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(request.headers);
      response.writeHead(200).end('ok');
    });
  });

  it('tails the event stream, creates a webhook whose secret is shown once, and redelivers a delivery from its log', async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/events');
    const hookUrl = `${server.url}/hook`;
    await workspace.lore.memories.create({ memory: 'Takes the 8:10 train' });

    // The tail from the oldest kept event, memory context only: the earlier event, then a live one.
    await page.getByLabel('Contexts').fill('memory');
    await page.getByLabel('From the oldest kept event').check();
    await page.getByRole('button', { name: 'Start tail' }).click();
    const tail = page.getByRole('list', { name: 'Events, newest first' });
    await tail.getByText('memory.created').first().waitFor();
    await workspace.lore.memories.create({ memory: 'Prefers window seats' });
    await until(() => tail.getByTestId('tail-event').count(), (count) => count === 2);
    await page.getByRole('button', { name: 'Stop tail' }).click();

    const form = page.getByRole('form', { name: 'Add a webhook' });
    await form.getByLabel('Endpoint URL').fill(hookUrl);
    await form.getByLabel('Event types').fill('memory.*');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const shown = page.getByRole('region', { name: 'Webhook created' });
    await expectTextSoon(shown.getByTestId('shown-once-secret'), /^whsec_/);
    await shown.getByRole('button', { name: 'Done, hide it' }).click();

    await workspace.lore.memories.create({ memory: 'Allergic to peanuts' });
    await until(async () => received.length, (count) => count === 1);
    const row = page.getByRole('table', { name: 'Webhooks' }).locator('tr', { hasText: hookUrl });
    await row.getByRole('button', { name: 'Deliveries' }).click();
    const log = page.getByRole('region', { name: `Deliveries to ${hookUrl}` });
    const delivery = log.getByRole('table', { name: 'Deliveries, newest first' }).locator('tbody tr').first();
    await until(() => refreshed(log, delivery), (text) => /delivered/.test(text));
    await expectTextSoon(delivery, /memory\.created.*delivered1.*HTTP 200/);

    // Redelivered: the endpoint gets the same event again (same webhook-id), the log counts a second attempt.
    await delivery.getByRole('button', { name: /^Redeliver memory\.created/ }).click();
    await until(async () => received.length, (count) => count === 2);
    expect(received[1]?.['webhook-id']).toBe(received[0]?.['webhook-id']);
    await until(() => refreshed(log, delivery), (text) => /delivered2/.test(text));

    await row.getByRole('button', { name: 'Disable' }).click();
    await expect(until(() => row.textContent(), (text) => /disabled/.test(text ?? ''))).resolves.toMatch(/Disabled by/i);
    await row.getByRole('button', { name: 'Enable' }).click();
    await row.getByRole('button', { name: 'Disable' }).waitFor();

    expect(await seriousViolations(page)).toEqual([]);
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'events-webhooks');
    expect(await checkPhoneLayout(page)).toEqual({ overflow: 0, navHiddenFirst: true, navShownByToggle: true, violations: [] });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("verifies the workspace's hash chains: a stream edited in the store is shown broken; a member gets the API's 403", async () => {
    const { page, problems, workspace } = await signedInPage(lore, '/events');
    await workspace.lore.memories.create({ memory: 'Untouched' });
    const edited = await workspace.lore.memories.create({ memory: 'Edited behind Lore' });
    tamperMemory(dataDir, edited.memory_id);

    const panel = page.getByRole('region', { name: 'Audit: tamper evidence' });
    await panel.getByRole('button', { name: 'Verify' }).click();
    const verdict = panel.getByRole('status');
    await expect(until(() => verdict.textContent(), (text) => text !== null && /checked/.test(text))).resolves.toBe('BROKEN 1 broken stream among 2 checked.');
    const broken = panel.getByRole('list', { name: 'Broken streams' }).getByRole('listitem');
    await expect(broken.allTextContents()).resolves.toEqual([`memory-${edited.memory_id} (memory) at revision 0: content does not match its hash (data, metadata, id or type edited)`]);
    await expect(panel.getByRole('row', { name: /^memory / }).textContent()).resolves.toBe('memory22001');

    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'events-audit');
    expect(problems).toEqual([]);
    await page.context().close();

    const member = await signedInPage(lore, '/events', { member: true });
    const refused = member.page.getByRole('region', { name: 'Audit: tamper evidence' });
    await refused.getByRole('button', { name: 'Verify' }).click();
    await expectTextSoon(refused.getByRole('alert'), /^HTTP 403: /);
    expect(await seriousViolations(member.page)).toEqual([]);
    expect(member.problems).toEqual([]);
    await member.page.context().close();
  });
});

/** Clicks the delivery log's Refresh and reads the row again. */
async function refreshed(log: Locator, row: Locator): Promise<string> {
  await log.getByRole('button', { name: 'Refresh' }).click();
  await log.getByRole('status').waitFor({ state: 'detached' });
  return (await row.count()) === 0 ? '' : ((await row.textContent()) ?? '');
}

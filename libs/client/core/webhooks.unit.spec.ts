import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhooks';

const SECRET = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
const BODY = JSON.stringify({ type: 'memory.created', timestamp: '2026-11-26T10:00:00Z', data: { memory_id: 'mem_1', workspace_id: 'ws' } });

/** Headers as the reference implementation (`standardwebhooks` on npm) signs them. */
function signed(body: string, at: Date, id = 'evt_1'): Record<string, string> {
  const signature = new Webhook(SECRET).sign(id, at, body);
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
}

describe('verifyWebhook (WebCrypto) against the reference Standard Webhooks implementation', () => {
  it('accepts what the reference signs, from plain headers or a Headers object, among several signatures', async () => {
    const headers = signed(BODY, new Date());
    expect(await verifyWebhook(SECRET, BODY, headers)).toMatchObject({ type: 'memory.created', data: { memory_id: 'mem_1' } });
    const rotated = { ...headers, 'webhook-signature': `v1,${Buffer.from('old key signature').toString('base64')} ${headers['webhook-signature']}` };
    expect(await verifyWebhook(SECRET, new TextEncoder().encode(BODY), new Headers(rotated))).toMatchObject({ type: 'memory.created' });
  });

  it('refuses a changed body, another id, a wrong secret, an old timestamp and missing headers', async () => {
    const now = new Date();
    const headers = signed(BODY, now);
    const refusals = [
      () => verifyWebhook(SECRET, BODY.replace('mem_1', 'mem_2'), headers),
      () => verifyWebhook(SECRET, BODY, { ...headers, 'webhook-id': 'evt_2' }),
      () => verifyWebhook(`whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}`, BODY, headers),
      () => verifyWebhook(SECRET, BODY, signed(BODY, new Date(now.getTime() - 10 * 60_000))),
      () => verifyWebhook(SECRET, BODY, { 'webhook-id': 'evt_1' }),
    ];
    for (const refusal of refusals) await expect(refusal()).rejects.toBeInstanceOf(WebhookVerificationError);
  });
});

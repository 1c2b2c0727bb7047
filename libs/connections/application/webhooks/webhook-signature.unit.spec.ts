import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signWebhook, webhookHeaders } from './webhook-signature';

describe('Standard Webhooks signing', () => {
  it('produces headers the reference library (standardwebhooks on npm) verifies', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'memory.created', timestamp: '2026-11-23T10:00:00.000Z', data: { memory_id: 'm1' } });
    const headers = webhookHeaders(secret, 'evt_1', body, new Date());
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('is refused by the library when the body, the id or the secret differ', () => {
    const secret = newWebhookSecret();
    const headers = webhookHeaders(secret, 'evt_1', '{"a":1}', new Date());
    expect(() => new Webhook(secret).verify('{"a":2}', headers)).toThrow();
    expect(() => new Webhook(secret).verify('{"a":1}', { ...headers, 'webhook-id': 'evt_2' })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify('{"a":1}', headers)).toThrow();
  });

  it('matches the specification\'s published example', () => {
    // From the Standard Webhooks specification (signature scheme section).
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});

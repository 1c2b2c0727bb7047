import type { Clock } from '@lore/platform/kernel';
import type { ContextLog } from '@lore/platform/cqrs';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { SealedFields } from '@lore/platform/crypto';
import { EgressRefused, type Egress } from '@lore/platform/egress/port';
import type { WebhookSettings } from '@lore/connections/contracts';
import { webhookHeaders } from './webhook-signature';
import { WEBHOOKS, WEBHOOK_DELIVERIES, WEBHOOK_HEALTH, type DeliveryDoc, type HealthDoc, type WebhookDoc } from './webhook.read-models';

const BATCH = 50;
const CONCURRENCY = 8;
const KEPT_ATTEMPTS = 20;
const MAX_RESPONSE_BYTES = 64 * 1024;
const PRUNE_EVERY_MS = 60 * 60_000;

export interface WebhookSenderDeps {
  readonly documents: DocumentStore;
  readonly egress: Egress;
  readonly clock: Clock;
  readonly log: ContextLog;
  readonly settings: WebhookSettings;
  readonly secrets: SealedFields<{ secret: string }>;
  readonly disable: (webhook: WebhookDoc, reason: string) => Promise<void>;
  /** Shared with redelivery, which must not reset a delivery mid-attempt. */
  readonly inFlight: Set<string>;
}

/**
 * Sends due deliveries: a signed POST through the egress port (its SSRF rules apply: a URL
 * resolving to a private address fails unless LORE_EGRESS_ALLOW permits it), retried on the
 * schedule with ±20 % jitter, then `failed`. An endpoint that fails without a single success
 * for WEBHOOK_DISABLE_AFTER_MS (and at least WEBHOOK_DISABLE_MIN_FAILURES attempts) is disabled,
 * with the reason. Woken at once by new deliveries; polls for retries otherwise.
 */
export class WebhookSender {
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private lastPrune = 0;
  private readonly secretCache = new Map<string, string>();

  constructor(private readonly deps: WebhookSenderDeps) {}

  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async start(): Promise<void> {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let full = false;
      try {
        full = (await this.sendDue()) === BATCH;
        await this.prune();
      } catch (error) {
        this.deps.log.error({ err: error instanceof Error ? error.message : String(error) }, 'webhook sender failed; it tries again');
      }
      if (!full && !this.woken && this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.deps.settings.pollMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }

  /** Answers how many deliveries it attempted. */
  private async sendDue(): Promise<number> {
    const now = this.deps.clock.now().toISOString();
    const due = await this.deps.documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES).find({
      filter: { status: 'pending', next_attempt_at: { $lte: now } },
      sort: [['next_attempt_at', 'asc']],
      limit: BATCH,
    });
    const queue = due.items.filter((delivery) => !this.deps.inFlight.has(delivery.id));
    const workers = Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
      for (let delivery = queue.shift(); delivery !== undefined; delivery = queue.shift()) await this.attempt(delivery);
    });
    await Promise.all(workers);
    return due.items.length;
  }

  private async attempt(delivery: DeliveryDoc): Promise<void> {
    const { documents, settings } = this.deps;
    this.deps.inFlight.add(delivery.id);
    try {
      const webhooks = documents.collection<WebhookDoc>(WEBHOOKS);
      const deliveries = documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES);
      const webhook = await webhooks.get(delivery.webhook_id);
      if (webhook === null) return void (await deliveries.delete(delivery.id));
      const started = this.deps.clock.now();
      const outcome = webhook.status === 'active' ? await this.post(webhook, delivery, started) : { statusCode: null, error: 'The webhook is disabled' };
      const finished = this.deps.clock.now();
      const round = Number(delivery['round_attempts'] ?? 0) + 1;
      const retryIn = outcome.error === null || webhook.status !== 'active' ? undefined : settings.retryScheduleMs[round - 1];
      const updated: DeliveryDoc = {
        ...delivery,
        status: outcome.error === null ? 'delivered' : retryIn === undefined ? 'failed' : 'pending',
        attempt_count: delivery.attempt_count + 1,
        round_attempts: round,
        attempts: [...delivery.attempts, { at: started.toISOString(), status_code: outcome.statusCode, duration_ms: finished.getTime() - started.getTime(), error: outcome.error }].slice(-KEPT_ATTEMPTS),
        next_attempt_at: retryIn === undefined ? null : new Date(finished.getTime() + jittered(retryIn)).toISOString(),
        updated_at: finished.toISOString(),
      };
      // Deleted while we were sending: its log went with it.
      if ((await webhooks.get(webhook.id)) === null) return;
      await deliveries.upsert(updated);
      if (webhook.status === 'active') await this.recordHealth(webhook, outcome.error, finished);
    } finally {
      this.deps.inFlight.delete(delivery.id);
    }
  }

  private async post(webhook: WebhookDoc, delivery: DeliveryDoc, now: Date): Promise<{ statusCode: number | null; error: string | null }> {
    // The Standard Webhooks payload shape: type, timestamp, data (the integration event).
    const body = JSON.stringify({ type: delivery.event_type, timestamp: delivery.event['occurred_at'], data: delivery.event });
    try {
      const response = await this.deps.egress.request({
        method: 'POST',
        url: webhook.url,
        headers: webhookHeaders(await this.secretOf(webhook), delivery.event_id, body, now),
        body,
        timeoutMs: this.deps.settings.timeoutMs,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        maxRedirects: 0,
      });
      const ok = response.status >= 200 && response.status < 300;
      return { statusCode: response.status, error: ok ? null : `The endpoint answered HTTP ${response.status}` };
    } catch (error) {
      return { statusCode: null, error: error instanceof EgressRefused ? error.message : 'The request failed' };
    }
  }

  private async secretOf(webhook: WebhookDoc): Promise<string> {
    let secret = this.secretCache.get(webhook.id);
    if (secret === undefined) {
      secret = (await this.deps.secrets.open(webhook.id, webhook.secret)).secret;
      if (this.secretCache.size >= 1_000) this.secretCache.clear();
      this.secretCache.set(webhook.id, secret);
    }
    return secret;
  }

  private async recordHealth(webhook: WebhookDoc, error: string | null, now: Date): Promise<void> {
    const health = this.deps.documents.collection<HealthDoc>(WEBHOOK_HEALTH);
    const current = await health.get(webhook.id);
    if (error === null) {
      if (current !== null) await health.delete(webhook.id);
      return;
    }
    const failingSince = current?.failing_since ?? now.toISOString();
    const failures = (current?.consecutive_failures ?? 0) + 1;
    await health.upsert({ id: webhook.id, failing_since: failingSince, consecutive_failures: failures, last_error: error });
    const { disableAfterMs, disableMinFailures } = this.deps.settings;
    if (failures >= disableMinFailures && now.getTime() - Date.parse(failingSince) >= disableAfterMs) {
      await this.deps.disable(webhook, `Disabled automatically: ${failures} deliveries in a row failed since ${failingSince} (last: ${error})`);
    }
  }

  /** Delivered and failed deliveries older than WEBHOOK_DELIVERY_RETENTION_DAYS leave the log. */
  private async prune(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    const cutoff = new Date(now - this.deps.settings.retentionMs).toISOString();
    await this.deps.documents.collection(WEBHOOK_DELIVERIES).deleteMany({ status: { $in: ['delivered', 'failed'] }, updated_at: { $lt: cutoff } });
  }
}

/** ±20 %: endpoints that failed together do not all retry in the same instant. */
function jittered(delayMs: number): number {
  return Math.round(delayMs * (0.8 + Math.random() * 0.4));
}

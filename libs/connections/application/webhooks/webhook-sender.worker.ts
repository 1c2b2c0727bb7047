import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '@lore/platform/kernel';
import type { ContextLog } from '@lore/platform/cqrs';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { SealedFields } from '@lore/platform/crypto';
import { EgressRefused, type Egress } from '@lore/platform/egress/port';
import { webhookAttempts, webhookSendersBusy } from '@lore/platform/telemetry';
import type { WebhookSettings } from '@lore/connections/contracts';
import { webhookHeaders } from './webhook-signature';
import { DeliveryLanes } from './delivery-lanes';
import { WEBHOOKS, WEBHOOK_DELIVERIES, WEBHOOK_HEALTH, type DeliveryDoc, type HealthDoc, type WebhookDoc } from './webhook.read-models';

/** Deliveries attempted at once, of every workspace. */
const CONCURRENCY = 8;
/** Of one workspace: the rest stay free for the others, however slow its endpoints. */
const PER_WORKSPACE = 6;
/** To one endpoint: one that hangs until the timeout ties up this many senders. */
const PER_WEBHOOK = 4;
/** A workspace's earliest pending deliveries looked at for its turn. */
const LOOK_AHEAD = 16;
/** Queries between turns of the event loop, where one pass makes one per workspace. */
const YIELD_EVERY = 64;
/** Webhooks read a page at a time at start, for the workspaces that may have deliveries pending. */
const START_PAGE = 500;
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
 * with the reason. Woken at once by new deliveries and by every attempt that ends; polls for
 * retries otherwise. Workspaces take turns for the senders (DeliveryLanes): one workspace's
 * backlog or hanging endpoint holds at most PER_WORKSPACE of them, one endpoint PER_WEBHOOK.
 */
export class WebhookSender {
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private lastPrune = 0;
  private readonly secretCache = new Map<string, string>();
  private readonly lanes = new DeliveryLanes({ perWorkspace: PER_WORKSPACE, perWebhook: PER_WEBHOOK });
  private readonly attempts = new Set<Promise<void>>();

  constructor(private readonly deps: WebhookSenderDeps) {}

  /** Something may be due: of `workspaceId` (new or redelivered deliveries), or anywhere (an endpoint enabled again). */
  wake(workspaceId?: string): void {
    if (workspaceId !== undefined) this.lanes.add(workspaceId);
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
    await Promise.all(this.attempts);
  }

  private async run(): Promise<void> {
    let started = false;
    while (this.running) {
      const polled = !this.woken;
      this.woken = false;
      try {
        if (!started) started = await this.findPendingWorkspaces();
        // A poll (no wake since the last pass) also looks for due deliveries of any workspace: a
        // safety net under the lanes, which the wakes keep.
        if (polled) await this.noteDueWorkspaces();
        await this.sendDue();
        await this.prune();
      } catch (error) {
        this.deps.log.error({ err: error instanceof Error ? error.message : String(error) }, 'webhook sender failed; it tries again');
      }
      if (!this.woken && this.running) await this.idle();
    }
  }

  /**
   * At start, every workspace with a webhook gets a lane (a backlog may be pending): the first
   * pass keeps it or lets it go with one indexed query. Read a page of webhooks a turn; far
   * fewer than deliveries, which a scan for the workspaces with pending ones had to read whole.
   */
  private async findPendingWorkspaces(): Promise<boolean> {
    const webhooks = this.deps.documents.collection<WebhookDoc>(WEBHOOKS);
    let cursor: string | null = null;
    do {
      if (!this.running) return false;
      const page: { items: WebhookDoc[]; nextCursor: string | null } = await webhooks.find({ limit: START_PAGE, ...(cursor === null ? {} : { cursor }) });
      for (const webhook of page.items) this.lanes.add(webhook.workspace_id);
      cursor = page.nextCursor;
      await nextTurn();
    } while (cursor !== null);
    return true;
  }

  /** The workspaces of the earliest due deliveries: in a lane again, should one have been let go too early. */
  private async noteDueWorkspaces(): Promise<void> {
    const { items } = await this.deps.documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES).find({
      filter: { status: 'pending', next_attempt_at: { $lte: this.deps.clock.now().toISOString() } },
      sort: [['next_attempt_at', 'asc']],
      limit: CONCURRENCY,
    });
    for (const delivery of items) if (!this.deps.inFlight.has(delivery.id)) this.lanes.add(delivery.workspace_id);
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

  /**
   * Starts attempts on the free senders, a delivery per workspace in turn (round after round
   * while senders are free and some workspace had one due), without waiting for them: each one
   * that ends wakes the loop for the next.
   */
  private async sendDue(): Promise<void> {
    for (let round = true; round && this.running; ) {
      round = false;
      const now = this.deps.clock.now();
      let looked = 0;
      for (const workspaceId of this.lanes.inTurn(now.getTime())) {
        if (this.lanes.inFlight >= CONCURRENCY || !this.running) return;
        // Many workspaces with retries not yet due: one query each, the event loop served between.
        if (++looked % YIELD_EVERY === 0) await nextTurn();
        const delivery = await this.nextDue(workspaceId, now);
        if (delivery === null) continue;
        round = true;
        const release = this.lanes.take(workspaceId, delivery.webhook_id);
        this.deps.inFlight.add(delivery.id);
        webhookSendersBusy.set(this.lanes.inFlight);
        const attempt = this.attemptIfStillDue(delivery)
          .catch((error: unknown) => this.deps.log.error({ err: error instanceof Error ? error.message : String(error), delivery_id: delivery.id }, 'webhook delivery attempt failed; it is tried again'))
          .finally(() => {
            this.deps.inFlight.delete(delivery.id);
            release();
            webhookSendersBusy.set(this.lanes.inFlight);
            this.attempts.delete(attempt);
            this.wake();
          });
        this.attempts.add(attempt);
      }
    }
  }

  /**
   * The workspace's earliest due delivery no sender has, to an endpoint with a sender to spare;
   * null when there is none now (the lane then waits for its next delivery's time, or goes).
   */
  private async nextDue(workspaceId: string, now: Date): Promise<DeliveryDoc | null> {
    const busy = this.lanes.busyWebhooks();
    const version = this.lanes.versionOf(workspaceId);
    const { items } = await this.deps.documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES).find({
      filter: { workspace_id: workspaceId, status: 'pending', ...(busy.length === 0 ? {} : { webhook_id: { $nin: busy } }) },
      sort: [['next_attempt_at', 'asc']],
      limit: LOOK_AHEAD,
    });
    const first = items.find((delivery) => !this.deps.inFlight.has(delivery.id));
    if (first === undefined) {
      // Nothing pending (the lane goes), or only what is in flight or to its endpoints without a sender to spare: looked at again when one of those ends.
      this.lanes.notDueUntil(workspaceId, items.length === 0 ? null : Infinity, version);
      return null;
    }
    const dueAt = first.next_attempt_at === null ? 0 : Date.parse(first.next_attempt_at);
    if (dueAt > now.getTime()) {
      this.lanes.notDueUntil(workspaceId, dueAt, version);
      return null;
    }
    return first;
  }

  /**
   * The attempt, unless the delivery changed since the query that found it: an attempt that
   * ended while that query ran has already stored its outcome (it is no longer in flight, but
   * the query read it as it was), and sending it again would send it twice.
   */
  private async attemptIfStillDue(found: DeliveryDoc): Promise<void> {
    const current = await this.deps.documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES).get(found.id);
    if (current === null || current.status !== 'pending' || current.updated_at !== found.updated_at) return;
    await this.attempt(current);
  }

  private async attempt(delivery: DeliveryDoc): Promise<void> {
    const { documents, settings } = this.deps;
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
    webhookAttempts.inc({ outcome: updated.status === 'pending' ? 'retrying' : updated.status });
    if (webhook.status === 'active') await this.recordHealth(webhook, outcome.error, finished);
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
